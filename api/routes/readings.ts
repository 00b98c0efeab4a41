// POST /v1/readings and GET /v1/agents/{did} (API.md "Meter readings"; JCP §5; docs/METER-READING.md).
// A batch of signed meter-reading/1 envelopes from agents registered in configuration: each is
// verified (signature and the profile's honesty re-checks: liveness and plausibility evidence),
// then checked against the agent's chain (seq exactly the next, prev the BLAKE3 of the last
// accepted envelope) and appended to the log. The agents' chain heads are derived from the log
// itself (a fold over its entries, caught up on every request), so they survive restarts. A
// resubmitted identical envelope is answered with its existing index, never refused.
import type { Log } from "../../log/mod.ts";
import {
  blake3,
  type CborMap,
  decodeCbor,
  entryLeafHash,
  failureCodes,
  fromHex,
  meterReading,
  parseCoseSign1,
  splitCoseSequence,
  toHex,
  VerifyInputError,
} from "../../verify/mod.ts";
import { mediaTypeOf } from "../envelope_input.ts";
import { ApiError } from "../errors.ts";
import { readBodyLimited } from "../limits.ts";
import type { AppDeps, RouteGroup } from "../route.ts";
import { verifyWith } from "../verifier_options.ts";

interface Head {
  seq: number;
  prev: string;
  index: number;
}

/** Chain heads of registered agents, folded from the log up to `scanned`. */
interface Book {
  scanned: number;
  heads: Map<string, Head>;
  lock: Promise<unknown>;
}

const books = new WeakMap<Log, Book>();

function bookOf(log: Log): Book {
  let b = books.get(log);
  if (!b) books.set(log, b = { scanned: 0, heads: new Map(), lock: Promise.resolve() });
  return b;
}

/** The reading's (agent, seq) if `entry` is a meter-reading/1 envelope, else undefined. */
function readingOf(entry: Uint8Array): { kid: string; core: CborMap } | undefined {
  try {
    const cose = parseCoseSign1(entry);
    const core = decodeCbor(cose.payload);
    if (!(core instanceof Map) || core.get("jc_receipt") !== meterReading.METER_READING_SCHEMA) {
      return undefined;
    }
    return { kid: cose.kid, core };
  } catch {
    return undefined;
  }
}

/** Folds log entries [scanned, size) into the agents' heads. */
async function catchUp(deps: AppDeps, book: Book): Promise<void> {
  const size = (await deps.log.latestHead()).size;
  for (let i = book.scanned; i < size; i++) {
    const e = await deps.log.entry(i);
    const r = e && readingOf(e);
    if (r && Object.hasOwn(deps.config.agents, r.kid)) {
      book.heads.set(r.kid, { seq: Number(r.core.get("seq")), prev: toHex(blake3(e!)), index: i });
    }
  }
  book.scanned = Math.max(book.scanned, size);
}

/** Serialises work on one log's book (seq checks and appends must not interleave). */
function locked<T>(book: Book, f: () => Promise<T>): Promise<T> {
  const run = book.lock.then(f, f);
  book.lock = run.catch(() => {});
  return run;
}

type Result = { seq: number | null; index: number } | {
  seq: number | null;
  code: string;
  detail: string;
};

async function accept(deps: AppDeps, book: Book, envelope: Uint8Array): Promise<Result> {
  const r = readingOf(envelope);
  const seq = r && typeof r.core.get("seq") === "number" ? Number(r.core.get("seq")) : null;
  if (!r) {
    return {
      seq,
      code: "reading-wrong-schema",
      detail: "the envelope is not a meter-reading/1 COSE_Sign1",
    };
  }
  const existing = await deps.log.indexOfLeaf(entryLeafHash(envelope));
  if (existing !== undefined) return { seq, index: existing }; // exactly once: the same bytes, the same entry
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
  if (!report.valid) {
    const codes = failureCodes(report);
    const step = report.steps.find((s) => s.status === "fail");
    return {
      seq,
      code: codes[0] ?? "reading-invalid",
      detail: step?.detail ?? "the reading does not verify",
    };
  }
  const head = book.heads.get(r.kid);
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
  const prev = head ? head.prev : meterReading.GENESIS_PREV;
  if (r.core.get("prev") !== prev) {
    return {
      seq,
      code: "reading-prev-mismatch",
      detail: `prev must be ${prev}, the last accepted envelope's BLAKE3`,
    };
  }
  const res = await deps.log.append(envelope);
  book.heads.set(r.kid, { seq, prev: toHex(blake3(envelope)), index: res.index });
  book.scanned = Math.max(book.scanned, res.index + 1);
  return { seq, index: res.index };
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
        'application/cbor-seq (RFC 8742: the envelopes one after another) or JSON {"envelopes": [hex]}, in seq order. 200 with one result per envelope: {seq, index} (appended, or ' +
        "already in the log) or {seq, code, detail} (refused, nothing changed).",
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
      const book = bookOf(deps.log);
      const results = await locked(book, async () => {
        await catchUp(deps, book);
        const out: Result[] = [];
        for (const e of envelopes) out.push(await accept(deps, book, e));
        return out;
      });
      return c.json({ results }, 200);
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
        "{did, label, last_seq, prev, next_seq, last_index}; last_seq is null before the first reading.",
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
      const book = bookOf(deps.log);
      const head = await locked(book, async () => {
        await catchUp(deps, book);
        return book.heads.get(did);
      });
      return c.json({
        did,
        label: deps.config.agents[did],
        last_seq: head?.seq ?? null,
        prev: head?.prev ?? meterReading.GENESIS_PREV,
        next_seq: head ? head.seq + 1 : 0,
        last_index: head?.index ?? null,
      });
    },
  }],
};
