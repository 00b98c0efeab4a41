// An allow's revocation status as the API states it (issue 25; docs/GRANTS.md "Revocation
// status"): every `jcp` allow's append answer and entry JSON carry `revocation`, the commit's own
// status when the append was checked now, else read (log/streams/revocation.ts: a few index
// seeks, nothing stored); a log that keeps no grant state says it did not check.
import { type AllowFacts, NOT_CHECKED, type RevocationStatus } from "../../log/mod.ts";
import type { AppDeps } from "./route.ts";

/** Whether a core (its JSON projection) is a `jcp` allow (JCP §8: jcp/2, jcp/1). */
export function isJcpAllow(core: unknown): boolean {
  const c = core as Record<string, unknown> | null;
  return typeof c?.jcp_receipt === "string" && c.verdict === "allow";
}

/**
 * The revocation status of the entry at `index` whose core is `core` (undefined: no `jcp` allow);
 * `known` is the append's, when its commit checked it.
 */
export async function revocationOf(
  deps: AppDeps,
  index: number,
  core: unknown,
  allow: AllowFacts | undefined,
  known?: RevocationStatus,
): Promise<RevocationStatus | undefined> {
  if (!isJcpAllow(core)) return undefined;
  if (known) return known;
  const r = deps.log.streamReads;
  return r && allow ? await r.revocation(index, allow) : NOT_CHECKED;
}
