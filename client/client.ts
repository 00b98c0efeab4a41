// A client of the log's HTTP API (API.md "Log") that trusts nothing it is told: every tree head
// is checked against the log key (JouleClaw SPEC §22.2: an unsigned root must not be used to
// verify a proof), every inclusion proof against a signed head, every consistency proof
// between two signed heads (RFC 6962 §2.1). Pure: fetch and web crypto only, so it runs in
// Deno, Node, browsers and Workers.
import {
  blake3Hasher,
  MAX_PROOF_HASHES,
  type TreeHead,
  verifyConsistency,
  verifyInclusion,
  verifyTreeHead,
} from "../log/mod.ts";
import {
  blake3,
  entryLeafHash,
  envelopeContentId,
  fromHex,
  openVerifierConfig,
  toHex,
} from "../verify/mod.ts";
import {
  type BodyKind,
  NetError,
  type NetResponse,
  request,
  type RequestOptions,
} from "../net/mod.ts";

/** A check the client made failed: the server's answer does not prove what it claims. */
export class VerificationFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VerificationFailure";
  }
}

/** The server answered with an error status (problem+json when it follows API.md). */
export class HttpError extends Error {
  constructor(readonly status: number, readonly problem: Record<string, unknown>) {
    super(
      `Cannot complete the request: HTTP ${status} ${problem.code ?? ""} ${problem.detail ?? ""}`
        .trim(),
    );
    this.name = "HttpError";
  }
}

/**
 * The log has no such entry: an index at or past the size of the signed checkpoint the client
 * read. A not-found, exit 1 like an HTTP 404 (docs/CLIENTS.md), never a failed check: the log
 * proved nothing false (issue 28: `prove` past the end exited 3).
 */
export class EntryNotFound extends Error {
  constructor(readonly index: number, readonly size: number, what = "prove") {
    super(
      `Cannot ${what} entry ${index}: not found: the log's signed checkpoint has ${size} ` +
        `entr${size === 1 ? "y" : "ies"}${size > 0 ? ` (0 to ${size - 1})` : ""}`,
    );
    this.name = "EntryNotFound";
  }
}

/** An append as the client checked it. */
export interface CheckedAppend {
  index: number;
  leaf_hash: string;
  /**
   * The verdict class the log appended the envelope with (JCR-1 §6, SPEC §6): valid,
   * joule-unverified or alert (absent from a log that predates verdicts).
   */
  verdict?: string;
  /** An alert's figures: the band, the reference and the receipt's joules (SPEC §6 DriftAlert). */
  drift_alert?: Record<string, unknown>;
  created: boolean;
  tree_head: TreeHead;
  inclusion_proof: string[];
}

/**
 * One envelope's answer in a bulk append (issue 29) as the client checked it: logged (its proof
 * closes against the answer's one signed head), or the server's refusal of it.
 */
export type CheckedBulkItem =
  | ({ ok: true } & CheckedAppend)
  | { ok: false; status: number; code: string; detail: string };

/** An inclusion proof as the client checked it. */
export interface CheckedInclusion {
  index: number;
  size: number;
  leaf_hash: string;
  path: string[];
  tree_head: TreeHead;
}

function b(hex: string): Uint8Array {
  return fromHex(hex);
}

/**
 * A proof path as the server sent it: an array of at most MAX_PROOF_HASHES 32-byte hex hashes,
 * checked before any of it is decoded or hashed (a longer one cannot be valid, log/proof.ts).
 */
function proofPath(v: unknown, what: string): string[] {
  if (!Array.isArray(v)) throw new VerificationFailure(`Cannot trust ${what}: it has no path`);
  if (v.length > MAX_PROOF_HASHES) {
    throw new VerificationFailure(
      `Cannot trust ${what}: its path has ${v.length} hashes, more than ${MAX_PROOF_HASHES}`,
    );
  }
  if (!v.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))) {
    throw new VerificationFailure(`Cannot trust ${what}: its path is not 32-byte hex hashes`);
  }
  return v;
}

/** Deadlines and redirect cap of every request a LogClient sends (net/ defaults otherwise). */
export type NetOptions = Pick<RequestOptions, "connectMs" | "totalMs" | "maxRedirects">;

/** The problem+json of an error answer, or `{}` when it is none (its body is already capped). */
function problemOf(res: NetResponse): Record<string, unknown> {
  try {
    const p = res.json();
    return p && typeof p === "object" ? p as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

/** A JSON object answer; anything else is refused as net-bad-json. */
function objectOf(res: NetResponse): Record<string, unknown> {
  const v = res.json();
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw new NetError("net-bad-json", res.url, "a JSON object", typeof v);
  }
  return v as Record<string, unknown>;
}

/**
 * Client of one log at `baseUrl`, optionally pinned to a signer (did:key). Every request goes
 * through net/ (deadlines, a body budget per kind of answer, a redirect cap): a hostile server
 * costs it bounded time and memory, and a transport failure is a NetError, never a hang.
 */
export class LogClient {
  #signer?: string;
  constructor(
    readonly baseUrl: string,
    signer?: string,
    readonly fetchFn: typeof fetch = fetch,
    readonly net: NetOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#signer = signer;
  }

  #send(path: string, kind: BodyKind, init: RequestOptions = {}): Promise<NetResponse> {
    return request(this.baseUrl + path, { ...this.net, ...init, kind, fetch: this.fetchFn });
  }

  async #get(path: string, kind: BodyKind): Promise<Record<string, unknown>> {
    const res = await this.#send(path, kind, { headers: { accept: "application/json" } });
    if (!res.ok) throw new HttpError(res.status, problemOf(res));
    return objectOf(res);
  }

  /** A JSON answer of the service at `path` (an HttpError when not 2xx). */
  getJson(path: string): Promise<Record<string, unknown>> {
    return this.#get(path, "json");
  }

  /**
   * The verifier configuration in force (issue 23), checked: the logged entry's BLAKE3 is the
   * digest, its operator signature verifies, and the document is the one answered. Throws
   * VerificationFailure otherwise.
   */
  async verifierConfig(): Promise<Record<string, unknown>> {
    const a = await this.#get("/v1/verifier-config", "json");
    if (a.index === null) {
      return { ...a, verified: false, note: "the embedded defaults, not logged" };
    }
    const bytes = await this.entryBytes(Number(a.index));
    if (toHex(blake3(bytes)) !== a.digest) {
      throw new VerificationFailure(`entry ${a.index} is not the configuration digest ${a.digest}`);
    }
    const doc = openVerifierConfig(bytes);
    const sorted = (v: unknown): string =>
      JSON.stringify(
        v,
        (_k, x) =>
          x && typeof x === "object" && !Array.isArray(x)
            ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => p < q ? -1 : 1))
            : x,
      );
    if (sorted(doc) !== sorted(a.config)) {
      throw new VerificationFailure(`entry ${a.index} does not hold the configuration answered`);
    }
    return { ...a, verified: true };
  }

  /** The log's signer: the pinned one, or the one /v1/log/key names (then pinned). */
  async signer(): Promise<string> {
    if (!this.#signer) this.#signer = String((await this.#get("/v1/log/key", "json")).signer);
    return this.#signer;
  }

  /** Checks a head's signature against the log key; throws VerificationFailure if it fails. */
  async checkHead(head: TreeHead): Promise<TreeHead> {
    const signer = await this.signer();
    if (head.signer !== signer) {
      throw new VerificationFailure(
        `Cannot trust tree head ${head.size}: signed by ${head.signer}, expected ${signer}`,
      );
    }
    if (!(await verifyTreeHead(head, signer))) {
      throw new VerificationFailure(`Cannot trust tree head ${head.size}: bad signature`);
    }
    return head;
  }

  /** The latest signed head, signature checked. */
  async head(): Promise<TreeHead> {
    return await this.checkHead(
      (await this.#get("/v1/log/tree-head", "checkpoint")) as unknown as TreeHead,
    );
  }

  /** The signed head at `size`, signature checked. */
  async headAt(size: number): Promise<TreeHead> {
    return await this.checkHead(
      (await this.#get(`/v1/log/tree-heads/${size}`, "checkpoint")) as unknown as TreeHead,
    );
  }

  /** Checks an inclusion proof of `leafHash` at `index` against a signed head. */
  checkInclusion(index: number, leafHash: string, path: string[], head: TreeHead): void {
    const ok = verifyInclusion(
      blake3Hasher,
      index,
      head.size,
      b(leafHash),
      path.map(b),
      b(head.root),
    );
    if (!ok) {
      throw new VerificationFailure(
        `Cannot trust entry ${index}: its inclusion proof does not close against head ${head.size}`,
      );
    }
  }

  /**
   * Submits an envelope; checks that the answer's leaf hash is the envelope's, its head is
   * signed by the log key, and its inclusion proof closes against that head. `route`: where it
   * is posted (a grant's and a revocation's own routes, issue 25, answer alike).
   */
  async submit(envelope: Uint8Array, route = "/v1/log/entries"): Promise<CheckedAppend> {
    const res = await this.#send(route, "json", {
      method: "POST",
      headers: { "content-type": "application/cose", accept: "application/json" },
      body: envelope.slice(),
    });
    if (res.status !== 201 && res.status !== 200) throw new HttpError(res.status, problemOf(res));
    const a = objectOf(res) as unknown as CheckedAppend;
    // issue 25: a second revocation of a revoked grant names the first one's entry, unlogged;
    // the caller proves that entry (client/commands/grants.ts)
    if (res.status === 200 && (a as { already_revoked?: unknown }).already_revoked === true) {
      return { ...a, created: false };
    }
    let leaf = toHex(entryLeafHash(envelope));
    if (a.leaf_hash !== leaf && res.status === 200) {
      // A twin (docs/DECISIONS.md "One entry per signed content"): the log answered with the entry
      // it already holds for this signed content. Trust it only if that entry's bytes hash to the
      // answered leaf and carry the same content identity as the envelope sent.
      leaf = await this.#checkTwin(a.index, a.leaf_hash, envelope);
    }
    if (a.leaf_hash !== leaf) {
      throw new VerificationFailure(
        `Cannot trust the append: leaf hash ${a.leaf_hash} is not the envelope's ${leaf}`,
      );
    }
    await this.checkHead(a.tree_head);
    const path = proofPath(a.inclusion_proof, `the append's inclusion proof`);
    this.checkInclusion(a.index, leaf, path, a.tree_head);
    return { ...a, created: res.status === 201 };
  }

  /**
   * Submits envelopes in one bulk append (issue 29: `application/cbor-seq`, the envelopes one
   * after another); checks the one head's signature, and for each logged envelope its leaf hash
   * (or its twin's, as `submit` does) and its inclusion proof against that head. A refusal of
   * one envelope is its result, not an error; an answer that is not one result per envelope,
   * or a proof that does not close, is a VerificationFailure.
   */
  async submitBulk(envelopes: Uint8Array[]): Promise<CheckedBulkItem[]> {
    let n = 0;
    for (const e of envelopes) n += e.length;
    const body = new Uint8Array(n);
    n = 0;
    for (const e of envelopes) body.set(e, n), n += e.length;
    // "page": the answer holds a proof per envelope (up to ~4.5 KB each), not a small JSON
    const res = await this.#send("/v1/log/entries", "page", {
      method: "POST",
      headers: { "content-type": "application/cbor-seq", accept: "application/json" },
      body,
    });
    if (res.status !== 200) throw new HttpError(res.status, problemOf(res));
    const a = objectOf(res) as { tree_head?: TreeHead | null; results?: unknown };
    const results = a.results as Record<string, unknown>[];
    if (!Array.isArray(results) || results.length !== envelopes.length) {
      throw new VerificationFailure(
        `Cannot trust the bulk append: ${envelopes.length} envelopes sent, the answer has ` +
          `${Array.isArray(results) ? results.length : "no"} results`,
      );
    }
    const head = a.tree_head;
    if (head && results.some((r) => r && typeof r.index === "number")) await this.checkHead(head);
    const out: CheckedBulkItem[] = [];
    for (const [k, r] of results.entries()) {
      if (!r || typeof r.index !== "number") {
        out.push({
          ok: false,
          status: Number(r?.status),
          code: String(r?.code),
          detail: String(r?.detail),
        });
        continue;
      }
      if (!head) throw new VerificationFailure(`Cannot trust the bulk append: no tree head`);
      let leaf = toHex(entryLeafHash(envelopes[k]));
      if (r.leaf_hash !== leaf && r.status === 200) {
        leaf = await this.#checkTwin(r.index, String(r.leaf_hash), envelopes[k]);
      }
      if (r.leaf_hash !== leaf) {
        throw new VerificationFailure(
          `Cannot trust the bulk append: item ${k}'s leaf hash ${r.leaf_hash} is not its ${leaf}`,
        );
      }
      const path = proofPath(r.inclusion_proof, `item ${k}'s inclusion proof`);
      this.checkInclusion(r.index, leaf, path, head);
      out.push({
        ok: true,
        index: r.index,
        leaf_hash: leaf,
        // JCR-1 §6, SPEC §6: the class the log appended it with
        ...(typeof r.verdict === "string" ? { verdict: r.verdict } : {}),
        ...(r.drift_alert && typeof r.drift_alert === "object"
          ? { drift_alert: r.drift_alert as Record<string, unknown> }
          : {}),
        created: r.status === 201,
        tree_head: head,
        inclusion_proof: path,
      });
    }
    return out;
  }

  /** The logged twin's leaf hash, once its bytes and its content identity are checked. */
  async #checkTwin(index: number, leafHash: string, envelope: Uint8Array): Promise<string> {
    const stored = await this.entryBytes(index);
    const mine = envelopeContentId(envelope), theirs = envelopeContentId(stored);
    if (
      toHex(entryLeafHash(stored)) !== leafHash || !mine || !theirs || toHex(mine) !== toHex(theirs)
    ) {
      throw new VerificationFailure(
        `Cannot trust the append: leaf hash ${leafHash} is not the envelope's, and entry ${index}` +
          ` is not its signed content`,
      );
    }
    return leafHash;
  }

  /**
   * Fetches and checks an inclusion proof by index or leaf hash, against the latest signed head
   * (or the head at `size`).
   */
  async prove(target: number | string, size?: number): Promise<CheckedInclusion> {
    const head = size === undefined ? await this.head() : await this.headAt(size);
    const q = typeof target === "number" ? `index=${target}` : `leaf_hash=${target}`;
    const p = await this.#get(`/v1/log/proof/inclusion?${q}&size=${head.size}`, "proof");
    const index = Number(p.index);
    const leaf = String(p.leaf_hash);
    if (typeof target === "string" && leaf !== target) {
      throw new VerificationFailure(`Cannot trust the proof: it is for leaf ${leaf}`);
    }
    if (typeof target === "number" && index !== target) {
      throw new VerificationFailure(`Cannot trust the proof: it is for index ${index}`);
    }
    const path = proofPath(p.path, `the inclusion proof of entry ${index}`);
    if (typeof target === "number") {
      // By index the server names the leaf: fetch the entry and hash it ourselves.
      const entry = await this.entryBytes(index);
      if (toHex(entryLeafHash(entry)) !== leaf) {
        throw new VerificationFailure(
          `Cannot trust entry ${index}: its bytes do not hash to ${leaf}`,
        );
      }
    }
    this.checkInclusion(index, leaf, path, head);
    return { index, size: head.size, leaf_hash: leaf, path, tree_head: head };
  }

  /** The raw envelope of entry `index` (Accept: application/cose). */
  async entryBytes(index: number): Promise<Uint8Array> {
    const res = await this.#send(`/v1/log/entries/${index}`, "entry", {
      headers: { accept: "application/cose" },
    });
    if (!res.ok) throw new HttpError(res.status, problemOf(res));
    return res.bytes;
  }

  /**
   * Checks that signed head `newer` extends signed head `older` (RFC 6962 §2.1.2): same root at
   * equal sizes, a verifying consistency proof otherwise. Throws VerificationFailure on a fork.
   */
  async checkConsistency(older: TreeHead, newer: TreeHead): Promise<void> {
    if (newer.size < older.size) {
      throw new VerificationFailure(
        `Cannot trust the log: its head went back from size ${older.size} to ${newer.size}`,
      );
    }
    if (newer.size === older.size) {
      if (newer.root !== older.root) {
        throw new VerificationFailure(
          `Cannot trust the log: two different signed roots at size ${older.size} ` +
            `(${older.root} and ${newer.root}): equivocation`,
        );
      }
      return;
    }
    if (older.size === 0) return; // every tree extends the empty tree
    const p = await this.#get(
      `/v1/log/proof/consistency?first=${older.size}&second=${newer.size}`,
      "proof",
    );
    const ok = verifyConsistency(
      blake3Hasher,
      older.size,
      newer.size,
      proofPath(p.path, `the consistency proof ${older.size} → ${newer.size}`).map(b),
      b(older.root),
      b(newer.root),
    );
    if (!ok) {
      throw new VerificationFailure(
        `Cannot trust the log: no valid consistency proof from size ${older.size} ` +
          `(root ${older.root}) to ${newer.size} (root ${newer.root}): split view or rewrite`,
      );
    }
  }
}
