// A client of the log's HTTP API (API.md "Log") that trusts nothing it is told: every tree head
// is checked against the log key (JouleClaw SPEC §22.2: an unsigned root must not be used to
// verify a proof), every inclusion proof against a signed head, every consistency proof
// between two signed heads (RFC 6962 §2.1). Pure: fetch and web crypto only, so it runs in
// Deno, Node, browsers and Workers.
import {
  blake3Hasher,
  type TreeHead,
  verifyConsistency,
  verifyInclusion,
  verifyTreeHead,
} from "../../log/mod.ts";
import { entryLeafHash, envelopeContentId, fromHex, toHex } from "../../verify/mod.ts";

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

/** The log could not be reached (connection refused, DNS, reset): the message names the URL. */
export class NetworkError extends Error {
  constructor(readonly url: string, cause: unknown) {
    super(`Cannot reach ${url}: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = "NetworkError";
  }
}

/** An append as the client checked it. */
export interface CheckedAppend {
  index: number;
  leaf_hash: string;
  created: boolean;
  tree_head: TreeHead;
  inclusion_proof: string[];
}

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

/** Client of one log at `baseUrl`, optionally pinned to a signer (did:key). */
export class LogClient {
  #signer?: string;
  constructor(readonly baseUrl: string, signer?: string, readonly fetchFn: typeof fetch = fetch) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#signer = signer;
  }

  /** fetch, with a failure to connect reported as a NetworkError naming the URL. */
  async #fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchFn(url, init);
    } catch (e) {
      throw new NetworkError(url, e);
    }
  }

  async #get(path: string): Promise<Record<string, unknown>> {
    const res = await this.#fetch(this.baseUrl + path, {
      headers: { accept: "application/json" },
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new HttpError(res.status, body as Record<string, unknown>);
    return body as Record<string, unknown>;
  }

  /** The log's signer: the pinned one, or the one /v1/log/key names (then pinned). */
  async signer(): Promise<string> {
    if (!this.#signer) this.#signer = String((await this.#get("/v1/log/key")).signer);
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
    return await this.checkHead((await this.#get("/v1/log/tree-head")) as unknown as TreeHead);
  }

  /** The signed head at `size`, signature checked. */
  async headAt(size: number): Promise<TreeHead> {
    return await this.checkHead(
      (await this.#get(`/v1/log/tree-heads/${size}`)) as unknown as TreeHead,
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
   * signed by the log key, and its inclusion proof closes against that head.
   */
  async submit(envelope: Uint8Array): Promise<CheckedAppend> {
    const res = await this.#fetch(this.baseUrl + "/v1/log/entries", {
      method: "POST",
      headers: { "content-type": "application/cose", accept: "application/json" },
      body: envelope.slice(),
    });
    const body = await res.json().catch(() => ({}));
    if (res.status !== 201 && res.status !== 200) throw new HttpError(res.status, body);
    const a = body as CheckedAppend;
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
    this.checkInclusion(a.index, leaf, a.inclusion_proof, a.tree_head);
    return { ...a, created: res.status === 201 };
  }

  /** The logged twin's leaf hash, once its bytes and its content identity are checked. */
  async #checkTwin(index: number, leafHash: string, envelope: Uint8Array): Promise<string> {
    const body = await this.#get(`/v1/log/entries/${index}`);
    const stored = fromHex(String(body.envelope));
    const mine = envelopeContentId(envelope), theirs = envelopeContentId(stored);
    if (
      toHex(entryLeafHash(stored)) !== leafHash || !mine || !theirs || toHex(mine) !== toHex(theirs)
    ) {
      throw new VerificationFailure(
        `Cannot trust the append: entry ${index} is neither the envelope nor its signed content`,
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
    const p = await this.#get(`/v1/log/proof/inclusion?${q}&size=${head.size}`);
    const index = Number(p.index);
    const leaf = String(p.leaf_hash);
    if (typeof target === "string" && leaf !== target) {
      throw new VerificationFailure(`Cannot trust the proof: it is for leaf ${leaf}`);
    }
    if (typeof target === "number" && index !== target) {
      throw new VerificationFailure(`Cannot trust the proof: it is for index ${index}`);
    }
    if (typeof target === "number") {
      // By index the server names the leaf: fetch the entry and hash it ourselves.
      const entry = await this.entryBytes(index);
      if (toHex(entryLeafHash(entry)) !== leaf) {
        throw new VerificationFailure(
          `Cannot trust entry ${index}: its bytes do not hash to ${leaf}`,
        );
      }
    }
    const path = p.path as string[];
    this.checkInclusion(index, leaf, path, head);
    return { index, size: head.size, leaf_hash: leaf, path, tree_head: head };
  }

  /** The raw envelope of entry `index` (Accept: application/cose). */
  async entryBytes(index: number): Promise<Uint8Array> {
    const res = await this.#fetch(`${this.baseUrl}/v1/log/entries/${index}`, {
      headers: { accept: "application/cose" },
    });
    if (!res.ok) throw new HttpError(res.status, await res.json().catch(() => ({})));
    return new Uint8Array(await res.arrayBuffer());
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
    const p = await this.#get(`/v1/log/proof/consistency?first=${older.size}&second=${newer.size}`);
    const ok = verifyConsistency(
      blake3Hasher,
      older.size,
      newer.size,
      (p.path as string[]).map(b),
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
