// The page's log panel (issue 13, "In the log?") and explorer. Placeholder until the tiled
// publication lands: looks the receipt up by leaf hash.
/// <reference lib="dom" />
import { byId, el, replace } from "./dom.ts";
import { fetchJson } from "./net.ts";

/** Looks a verified envelope up in the log and checks its inclusion. */
export async function checkInLog(_envelope: Uint8Array, leafHash: string): Promise<void> {
  const panel = byId("log-panel");
  panel.hidden = false;
  const body = byId("log-body");
  try {
    const { index } = await fetchJson<{ index: number }>(`/v1/log/leaves/${leafHash}`);
    panel.setAttribute("data-inclusion", "verified");
    replace(body, el("p", {}, `Logged at index ${index}.`));
  } catch {
    panel.setAttribute("data-inclusion", "absent");
    replace(body, el("p", {}, "This receipt is not in this log."));
  }
}
