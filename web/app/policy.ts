// The page's witness policy (C2SP tlog-policy): the operator's default or one the person loads;
// counts the checkpoint's verified cosignatures against its quorum.
import type { OpenedCheckpoint } from "../../log/c2sp/mod.ts";

/** A policy in use and where it came from. */
export interface PolicyView {
  source: string;
  /** The names of the witnesses whose cosignatures verify on `opened`, and whether the quorum is met. */
  check(opened: OpenedCheckpoint): Promise<{ met: boolean; cosigners: string[] }>;
}

/** The quorum verdict shown in the log panel (`data-quorum`). */
export async function policyVerdict(
  policy: PolicyView | undefined,
  opened: OpenedCheckpoint,
): Promise<{ state: "met" | "not-met" | "none"; line: string }> {
  const others = opened.unknown.length;
  if (!policy) {
    return {
      state: "none",
      line: `No witness policy in use: the checkpoint's ${others} other signature${
        others === 1 ? "" : "s"
      } are not counted.`,
    };
  }
  const { met, cosigners } = await policy.check(opened);
  const who = cosigners.length ? cosigners.join(", ") : "no witness";
  return met
    ? { state: "met", line: `Witness quorum met (${policy.source}): cosigned by ${who}.` }
    : { state: "not-met", line: `Witness quorum NOT met (${policy.source}): cosigned by ${who}.` };
}
