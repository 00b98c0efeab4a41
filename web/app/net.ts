// The page's outbound reads go through the project's one HTTP helper (net/, issue 18): a deadline
// on every request and a byte budget per kind of answer, enforced while the body streams, so a
// hostile or broken server cannot hang or bloat the page.
import { type BodyKind, request } from "../../net/mod.ts";

/** GETs a URL's body within the budget of `kind`; an HTTP error status is an Error naming it. */
export async function getBytes(
  url: string,
  kind: BodyKind,
  accept?: string,
): Promise<Uint8Array> {
  const res = await request(new URL(url, location.href), {
    kind,
    headers: accept ? { accept } : {},
  });
  if (!res.ok) {
    let detail = "";
    try {
      detail = (res.json() as { detail?: string })?.detail ?? "";
    } catch { /* not a problem+json */ }
    throw new Error(`GET ${url}: HTTP ${res.status}${detail ? ` (${detail})` : ""}`);
  }
  return res.bytes;
}

/** GETs JSON within the budget of `kind`. */
export async function getJson<T>(url: string, kind: BodyKind = "json"): Promise<T> {
  const b = await getBytes(url, kind, "application/json");
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b)) as T;
}
