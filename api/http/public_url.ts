// The service's public URL (config `public_url`, docs/CONFIG.md; issue 27): the one base of every
// IRI and URL the service publishes (entry IRIs in RDF views and the export, SPARQL graph IRIs,
// the policy's log URL, the Hydra and OpenAPI documents). The request's Host header never changes
// what is published: a forged Host would otherwise be reflected into answers marked immutable
// (and cached), into the policy the page trusts, and — through the first SPARQL query — into
// every later user's graph IRIs. A malformed Host is refused with 400 `bad-host` on every route.
// Pure (no Deno.*): both entries use it.
import { ApiError } from "./errors.ts";

/**
 * RFC 9110 §7.2 Host = uri-host [ ":" port ], uri-host = RFC 3986 §3.2.2 host: an IP-literal
 * (`[` IPv6address / IPvFuture `]`) or a reg-name (unreserved / pct-encoded / sub-delims; an
 * IPv4address is one too). Anything else (`^ < > | / ? #`, spaces) is not a host.
 */
const HOST = new RegExp(
  "^(?:\\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\\.[A-Za-z0-9._~!$&'()*+,;=:-]+)\\]" +
    "|(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$",
);

/** Whether `host` (a Host header's value) is a valid host[:port] (RFC 3986 §3.2.2, §3.2.3). */
export function validHost(host: string): boolean {
  return HOST.test(host);
}

/** The 400 a request with a malformed Host header answers (any route). */
export function badHost(): ApiError {
  return new ApiError(
    "bad-host",
    "Cannot answer: the Host header is not a valid host[:port] (RFC 3986 §3.2.2)",
  );
}

/**
 * Checks and normalizes a configured public URL: an absolute http: or https: URL with a host,
 * no user info, query or fragment; returned without a trailing slash (a path is kept: a service
 * behind a proxy at `https://example.org/jc` publishes `https://example.org/jc/v1/...`).
 * Throws an Error naming `key`.
 */
export function parsePublicUrl(key: string, v: unknown): string {
  const bad = (why: string): never => {
    throw new Error(`Cannot load config: ${key} ${why}, got ${JSON.stringify(v)}`);
  };
  if (typeof v !== "string" || v.trim() === "") return bad("must be an absolute http(s) URL");
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    return bad("must be an absolute http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") bad("must be an http: or https: URL");
  if (!u.host) bad("must name a host");
  if (u.username || u.password) bad("must not carry user info");
  if (u.search || v.includes("?")) bad("must not have a query");
  if (u.hash || v.includes("#")) bad("must not have a fragment");
  return (u.origin + u.pathname).replace(/\/+$/, "");
}

/** The default public URL: the listen address (a wildcard address is published as loopback). */
export function defaultPublicUrl(host: string, port: number): string {
  const h = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

/** What a handler knows that decides its public base (AppDeps' slice). */
export interface PublicBaseDeps {
  config: { publicUrl?: string; host: string; port: number };
  services?: { shardPrefix?: string };
}

/**
 * The public base of an app's resources: the public URL, plus the shard's prefix for a shard
 * after the first (docs/SHARDS.md "A shard is a base URL"). No trailing slash.
 */
export function publicBase(deps: PublicBaseDeps): string {
  const root = publicRoot(deps);
  const prefix = deps.services?.shardPrefix;
  return prefix !== undefined && prefix !== "/" ? root + prefix : root;
}

/** The service root's public URL (no shard prefix): what `/`, the API documents and SPARQL use. */
export function publicRoot(deps: PublicBaseDeps): string {
  return deps.config.publicUrl ?? defaultPublicUrl(deps.config.host, deps.config.port);
}
