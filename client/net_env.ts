// The client's deadlines from the environment (docs/CLIENTS.md): JC_CONNECT_TIMEOUT_MS,
// JC_TIMEOUT_MS, JC_MAX_REDIRECTS. Unset means net/'s defaults; a malformed value is refused.
import type { NetOptions } from "./client.ts";

const VARS = [
  ["JC_CONNECT_TIMEOUT_MS", "connectMs", 1],
  ["JC_TIMEOUT_MS", "totalMs", 1],
  ["JC_MAX_REDIRECTS", "maxRedirects", 0],
] as const;

/** Reads the net options from `get` (e.g. `Deno.env.get`); throws on a malformed value. */
export function netOptionsFromEnv(get: (name: string) => string | undefined): NetOptions {
  const o: NetOptions = {};
  for (const [name, key, min] of VARS) {
    const v = get(name);
    if (v === undefined || v === "") continue;
    if (!/^\d+$/.test(v) || Number(v) < min) {
      throw new Error(`Cannot read ${name}: expected an integer >= ${min}, got ${v}`);
    }
    o[key] = Number(v);
  }
  return o;
}
