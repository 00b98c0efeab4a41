// The page's witness policy (C2SP tlog-policy; docs/WITNESS.md): the log operator's default
// (`GET /v1/log/policy`) or one the person loads. Witnesses cosign the SHA-256 view (PUBLICATION.md
// Decision P3), so the quorum is counted on the SHA-256 checkpoint, with the same code as the CLI
// (log/c2sp openCheckpointWithPolicy).
import {
  C2spError,
  openCheckpointWithPolicy,
  parsePolicy,
  type TlogPolicy,
} from "../../log/c2sp/mod.ts";

/** A policy in use and where it came from. */
export interface PolicyView {
  source: string;
  policy: TlogPolicy;
}

/** Parses a policy file's bytes; throws an Error naming the line. */
export function readPolicy(bytes: Uint8Array, source: string): PolicyView {
  return { source, policy: parsePolicy(bytes) };
}

/** The quorum verdict on a SHA-256 checkpoint note (`data-quorum`). */
export async function policyVerdict(
  view: PolicyView | undefined,
  sha256Note: string,
): Promise<{ state: "met" | "not-met" | "none"; line: string }> {
  if (!view) {
    return { state: "none", line: "No witness policy in use: cosignatures are not counted." };
  }
  try {
    const { cosigners } = await openCheckpointWithPolicy(sha256Note, view.policy);
    const who = cosigners.length ? `cosigned by ${cosigners.join(", ")}` : "no cosignature needed";
    return { state: "met", line: `Witness quorum met (${view.source}): ${who}.` };
  } catch (e) {
    const why = e instanceof C2spError ? e.message : String(e);
    return { state: "not-met", line: `Witness quorum NOT met (${view.source}): ${why}` };
  }
}
