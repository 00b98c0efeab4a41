// JCP §5, §5.1 rung 5, §11: the `meter-reading/1` checks that need the agent's chain — what the
// receiving service keeps of the agent's previous readings (its chain head: the last span's end,
// the latest HwShunt reading per domain) and its own clock. Pure: the service (POST /v1/readings,
// api/http/routes/readings.ts) passes the head its store kept and `Date.now()`; both deployments
// run the same route, so the same checks (docs/METER-READING.md "Service checks").

import type { CborMap } from "../cbor.ts";
import { isUint } from "./fields.ts";
import { rateMw, READING_TIME } from "./meter_rules.ts";

/** A host calibration a chain holds: the HwShunt reading (content id, hex) and its rate, mW. */
export interface ChainCalibration {
  reading: string;
  power_mw: number;
}

/** What the service keeps of an agent's chain for these checks (log/storage.ts `AgentHead`). */
export interface ReadingChainState {
  /** The last accepted reading's span end, ms. */
  end?: number;
  /** Per domain, the agent's latest accepted HwShunt reading. */
  calibrations?: Record<string, ChainCalibration>;
}

/** A refusal: its stable code (verify/codes.ts) and why. */
export interface ChainFinding {
  code: string;
  detail: string;
}

const n = (v: unknown): number => (isUint(v) ? Number(v) : NaN);

/**
 * The service's checks of a verified reading against the agent's chain and the service's clock,
 * in this order: `reading-future`, `reading-overlap`, `reading-gap-unexplained`,
 * `reading-calibration-unknown`; undefined when none is broken. `state` is undefined for the
 * agent's first reading (or a head stored before the state was kept: nothing to compare).
 */
export function chainFinding(
  core: CborMap,
  state: ReadingChainState | undefined,
  nowMs: number,
): ChainFinding | undefined {
  const start = n(core.get("start"));
  const end = n(core.get("end"));
  // JCP §11 "Time is the enforcement point's ... The endpoint MUST decide at its own clock".
  if (end > nowMs + READING_TIME.futureSkewMs) {
    return {
      code: "reading-future",
      detail: `the span ends at ${end}, ${
        end - nowMs
      } ms after this service's clock (skew ${READING_TIME.futureSkewMs} ms)`,
    };
  }
  if (state?.end !== undefined) {
    // JCP §5: one span's energy counted once — spans of one agent never overlap.
    if (start < state.end) {
      return {
        code: "reading-overlap",
        detail:
          `the span starts at ${start}, before the agent's previous span ended (${state.end})`,
      };
    }
    // docs/METER-READING.md: consecutive readings of a run are contiguous, or say why not.
    if (start > state.end && !core.has("gap")) {
      return {
        code: "reading-gap-unexplained",
        detail: `the span starts at ${start}, ${
          start - state.end
        } ms after the agent's previous span ended, and carries no gap reason`,
      };
    }
  }
  if (core.get("counter") === "model") {
    // JCP §5.1 rung 5: "an active power calibrated on the host": the calibration the figure names
    // is this agent's latest logged HwShunt reading of the same domain.
    const domain = String(core.get("domain"));
    const want = state?.calibrations?.[domain]?.reading;
    if (core.get("calibration") !== want) {
      return {
        code: "reading-calibration-unknown",
        detail: want === undefined
          ? `the agent has no logged HwShunt reading of the ${domain} domain to calibrate from`
          : `calibration ${core.get("calibration")} is not the agent's latest logged HwShunt ` +
            `reading of the ${domain} domain (${want})`,
      };
    }
  }
  return undefined;
}

/**
 * The chain state after `core` is accepted: its span end, and the calibrations carried forward,
 * this reading's own when it is HwShunt (`contentId`: its content id, hex).
 */
export function nextChainState(
  core: CborMap,
  before: ReadingChainState | undefined,
  contentId: string,
): Required<ReadingChainState> {
  const calibrations = { ...before?.calibrations };
  const start = n(core.get("start"));
  const end = n(core.get("end"));
  if (core.get("energy_provenance") === "HwShunt" && end > start) {
    calibrations[String(core.get("domain"))] = {
      reading: contentId,
      power_mw: rateMw(n(core.get("energy_uj")), (end - start) * 1000),
    };
  }
  return { end, calibrations };
}
