// POST /v1/readings and GET /v1/agents/{did} (API.md "Meter readings"; JCP §5; docs/METER-READING.md).
// A batch of signed meter-reading/1 envelopes from agents registered in configuration: each is
// verified (signature and the profile's honesty re-checks: liveness and plausibility evidence),
// then checked against the agent's chain (seq exactly the next, prev the BLAKE3 of the last
// accepted envelope; its span after the last one's end, not past this service's clock; a model
// figure's calibration the agent's latest logged HwShunt reading: meter_reading_chain.ts) and
// appended to the log. The agents' chain heads are kept by the store,
// written in the same commit as the reading that moves them (log/storage.ts `AgentHead`), so both
// routes read them in O(1) at any log size and they survive restarts; a store written before them
// is folded once (log/agent_heads.ts). A resubmitted identical envelope is answered with its
// existing index, never refused.
import type { AgentHead, Log } from "../../../log/mod.ts";
import {
  blake3,
  entryLeafHash,
  envelopeContentId,
  failureCodes,
  fromHex,
  loggedVerdict,
  meterReading,
  splitCoseSequence,
  toHex,
  type Verdict,
  VerifyInputError,
} from "../../../verify/mod.ts";
import { mediaTypeOf } from "../envelope_input.ts";
import { readingLink, readingOf } from "../reading_link.ts";
import { ApiError } from "../errors.ts";
import { readBodyLimited } from "../limits.ts";
import { activeLog, type AppDeps, type RouteGroup } from "../route.ts";
import { verifierConfigRef, verifyWith } from "../verifier_options.ts";
import { outcomeCode } from "./verify.ts";

/** One lock per log: an agent's chain check and its append must not interleave. */
const locks = new WeakMap<Log, { lock: Promise<unknown> }>();

/** Serialises work on one log's chains (seq checks and appends must not interleave). */
function locked<T>(log: Log, f: () => Promise<T>): Promise<T> {
  let b = locks.get(log);
  if (!b) locks.set(log, b = { lock: Promise.resolve() });
  const run = b.lock.then(f, f);
  b.lock = run.catch(() => {});
  return run;
}

/** An agent's chain head: one store read (log/agent_heads.ts; older stores folded once). */
async function headOf(log: Log, did: string): Promise<AgentHead | undefined> {
  if (!log.agentHead) {
    throw new Error("Cannot check a reading's chain: this log keeps no agents' chain heads");
  }
  return await log.agentHead(did, readingLink);
}

/**
 * One envelope's result (issue 23): a logged one carries its verdict class (a meter reading has
 * no step 6: `valid`); a refusal by the verifier (JCR-1 §6 steps 1-5) carries `invalid`; one
 * refused by the route's own rules (schema, registration, the agent's chain) carries none, as a
 * bulk append's refusals (docs/DECISIONS.md "Verdict classes", Readings).
 */
type Result = { seq: number | null; index: number; verdict: Verdict } | {
  seq: number | null;
  code: string;
  detail: string;
  verdict?: "invalid";
};

async function accept(deps: AppDeps, envelope: Uint8Array, started: number): Promise<Result> {
  const r = readingOf(envelope);
  const seq = r && typeof r.core.get("seq") === "number" ? Number(r.core.get("seq")) : null;
  if (!r) {
    return {
      seq,
      code: "reading-wrong-schema",
      detail: "the envelope is not a meter-reading/1 COSE_Sign1",
    };
  }
  const existing = await activeLog(deps).indexOfLeaf(entryLeafHash(envelope));
  if (existing !== undefined) {
    // exactly once: the same bytes, the same entry (a duplicate append; nothing was verified)
    deps.metrics.append(false, performance.now() - started, 0, "readings");
    return { seq, index: existing, verdict: loggedVerdict(envelope, deps.verifier) };
  }
  if (!Object.hasOwn(deps.config.agents, r.kid)) {
    return {
      seq,
      code: "agent-not-registered",
      detail: `agent ${r.kid} is not registered with this service`,
    };
  }
  if (r.core.get("agent") !== r.kid) {
    return {
      seq,
      code: "reading-agent-kid",
      detail: `agent ${r.core.get("agent")} is not the kid ${r.kid}`,
    };
  }
  const report = await verifyWith(deps, envelope);
  // the same metrics as receipts' (api/http/metrics.ts), labelled source="readings"
  deps.metrics.verification(outcomeCode(report), "readings");
  deps.metrics.verdict(report.verdict, "readings");
  if (!report.valid) {
    const codes = failureCodes(report);
    const step = report.steps.find((s) => s.status === "fail");
    return {
      seq,
      code: codes[0] ?? "reading-invalid",
      detail: step?.detail ?? "the reading does not verify",
      verdict: "invalid",
    };
  }
  const head = await headOf(activeLog(deps), r.kid);
  const want = head ? head.seq + 1 : 0;
  if (seq === null || seq < want) {
    return {
      seq,
      code: "reading-seq-replay",
      detail: `seq ${seq} is not after the last accepted seq ${head?.seq}`,
    };
  }
  if (seq > want) {
    return { seq, code: "reading-seq-gap", detail: `seq ${seq} skips the next seq ${want}` };
  }
  const prev = head ? toHex(head.prev) : meterReading.GENESIS_PREV;
  if (r.core.get("prev") !== prev) {
    return {
      seq,
      code: "reading-prev-mismatch",
      detail: `prev must be ${prev}, the last accepted envelope's BLAKE3`,
    };
  }
  // JCP §5, §5.1 rung 5, §11: overlap, gap, future and calibration, against the head's state
  const bad = meterReading.chainFinding(r.core, head, Date.now());
  if (bad) return { seq, ...bad };
  // the chain head moves in the same commit as the reading (one store write, O(1) reads), with
  // the state the next reading is checked against (its span end, the calibrations)
  const state = meterReading.nextChainState(r.core, head, toHex(envelopeContentId(envelope)!));
  const link = { did: r.kid, seq, prev: blake3(envelope), ...state };
  const res = await activeLog(deps).append(envelope, link);
  deps.metrics.append(res.created, performance.now() - started, res.tree_head.size, "readings");
  return { seq, index: res.index, verdict: report.verdict };
}

/** The most envelopes one batch may carry (the body limit bounds it too). */
const MAX_BATCH = 1000;

async function readBatch(req: Request, limit: number): Promise<Uint8Array[]> {
  const mt = mediaTypeOf(req.headers.get("content-type"));
  if (mt !== "application/json" && mt !== "application/cbor-seq") {
    throw new ApiError(
      "unsupported-media-type",
      `Cannot read the readings: Content-Type "${
        mt || "(none)"
      }" is neither application/cbor-seq nor application/json`,
    );
  }
  const body = await readBodyLimited(req, limit);
  if (mt === "application/cbor-seq") {
    // RFC 8742: the envelopes' bytes one after another, each delimited by the strict decoder.
    try {
      return splitCoseSequence(body, MAX_BATCH);
    } catch (e) {
      const code = e instanceof VerifyInputError ? e.code : "bad-request";
      throw new ApiError(
        "bad-request",
        `Cannot read the readings: the application/cbor-seq body is not a sequence of CBOR items (${code})`,
        { cause: e },
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (e) {
    throw new ApiError("bad-request", "Cannot read the readings: the body is not JSON", {
      cause: e,
    });
  }
  const list = (json as { envelopes?: unknown } | null)?.envelopes;
  if (
    !Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH ||
    list.some((h) => typeof h !== "string")
  ) {
    throw new ApiError(
      "bad-request",
      'Cannot read the readings: "envelopes" must be 1 to 1000 hex strings',
    );
  }
  try {
    return list.map((h) => fromHex(h as string));
  } catch (e) {
    throw new ApiError(
      "bad-envelope-encoding",
      "Cannot read the readings: an envelope is not lowercase hex",
      { cause: e },
    );
  }
}

/** The meter-reading route group. */
export const readingsRoutes: RouteGroup = {
  name: "readings",
  routes: [{
    method: "POST",
    path: "/v1/readings",
    class: {
      id: "jc:MeterReadingCollection",
      title: "Meter readings",
      description: "Signed meter-reading/1 envelopes from registered agents.",
    },
    operation: {
      title: "Submit a batch of meter readings",
      description:
        'application/cbor-seq (RFC 8742: the envelopes one after another) or JSON {"envelopes": [hex]}, in seq order. 200 with one result per envelope: {seq, index, verdict} (appended, or ' +
        'already in the log) or {seq, code, detail} (refused, nothing changed; verdict "invalid" ' +
        "when the verifier refused it); verifier_config: " +
        "{digest, index}, the configuration they were judged under.",
      expects: "jc:MeterReadingBatch",
      returns: "jc:MeterReadingResults",
      possibleStatus: [
        { status: 200, description: "One result per envelope." },
        { status: 400, description: "No body, bad JSON or bad hex." },
        { status: 415, description: "Neither application/cbor-seq nor application/json." },
        { status: 503, description: "The sequencer is full; Retry-After says when to retry." },
      ],
      toolId: "jouleclaw:readings.submit",
      mutating: true,
    },
    handler: async (c) => {
      const deps = c.get("deps");
      const envelopes = await readBatch(c.req.raw, deps.config.bodyLimit);
      // issue 23: the configuration they are judged under, logged before them
      const cfg = await verifierConfigRef(deps);
      const results = await locked(activeLog(deps), async () => {
        const out: Result[] = [];
        for (const e of envelopes) out.push(await accept(deps, e, c.get("startedAt")));
        return out;
      });
      return c.json(cfg ? { results, verifier_config: cfg } : { results }, 200);
    },
  }, {
    method: "GET",
    path: "/v1/agents/:did",
    class: {
      id: "jc:MeterAgent",
      title: "Meter agent",
      description: "A registered meter agent and its chain head.",
    },
    operation: {
      title: "Read a meter agent's registration and chain head",
      description:
        "{did, label, last_seq, prev, next_seq, last_index, last_end, calibrations}; last_seq and last_end are null before the first reading; calibrations maps a domain to the agent's latest logged HwShunt reading of it ({reading, power_mw}).",
      expects: "owl:Nothing",
      returns: "jc:MeterAgent",
      possibleStatus: [{ status: 200, description: "The agent." }, {
        status: 404,
        description: "Not a registered agent.",
      }],
      toolId: "jouleclaw:agents.get",
      mutating: false,
    },
    handler: async (c) => {
      const deps = c.get("deps");
      const did = c.req.param("did") ?? "";
      if (!Object.hasOwn(deps.config.agents, did)) {
        throw new ApiError("not-found", `Cannot find agent ${did}: it is not registered`, {
          extra: { code_detail: "agent-not-registered" },
        });
      }
      const head = await headOf(activeLog(deps), did);
      return c.json({
        did,
        label: deps.config.agents[did],
        last_seq: head?.seq ?? null,
        prev: head ? toHex(head.prev) : meterReading.GENESIS_PREV,
        next_seq: head ? head.seq + 1 : 0,
        last_index: head?.index ?? null,
        last_end: head?.end ?? null,
        calibrations: head?.calibrations ?? {},
      });
    },
  }],
};
