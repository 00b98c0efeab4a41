// An independent audit of every signed head a test saw (issue 27): the tests record each append's
// answer and each checkpoint of both views (per origin: the log key and the view), and the audit
// asserts that no two roots were ever signed at one size under one origin, and that every
// acknowledged entry is still there, proven by an inclusion proof against a later checkpoint.
// Signatures and proofs are checked with the project's verification code (log/head.ts, log/proof.ts,
// log/c2sp), never by asking the service whether it agrees with itself.
import assert from "node:assert/strict";
import { blake3Hasher, c2sp, verifyInclusion } from "../../log/mod.ts";
import { fromHex, toHex } from "../../log/crypto.ts";
import { verifyTreeHead } from "../../log/head.ts";
import { shardUrl } from "../../log/shards/mod.ts";

/** An append answer (`POST /v1/log/entries`). */
export interface AppendAnswer {
  index: number;
  leaf_hash: string;
  tree_head: { size: number; root: string; timestamp: number; signature: string; signer: string };
  inclusion_proof: string[];
}

interface Acked {
  signer: string;
  index: number;
  leaf: string;
}

/** Every signed head seen, and every acknowledged entry. */
export class HeadsAudit {
  /** origin (`<signer> <view>`) → size → root (hex), the first seen. */
  readonly #roots = new Map<string, Map<number, string>>();
  readonly #forks: string[] = [];
  readonly #acked: Acked[] = [];
  /** Heads recorded, for the tests' output. */
  heads = 0;

  #record(origin: string, size: number, root: string, from: string): void {
    let m = this.#roots.get(origin);
    if (!m) this.#roots.set(origin, m = new Map());
    const seen = m.get(size);
    this.heads++;
    if (seen === undefined) m.set(size, root);
    else if (seen !== root) {
      this.#forks.push(`${origin} size ${size}: ${seen} and ${root} (${from})`);
    }
  }

  /** Records an append's answer: its head (signature checked) and its proof against it. */
  async append(a: AppendAnswer): Promise<void> {
    const h = a.tree_head;
    assert.ok(await verifyTreeHead(h, h.signer), `append answer's head does not verify`);
    const ok = verifyInclusion(
      blake3Hasher,
      a.index,
      h.size,
      fromHex(a.leaf_hash),
      a.inclusion_proof.map(fromHex),
      fromHex(h.root),
    );
    assert.ok(ok, `append answer's inclusion proof for ${a.index} does not verify`);
    this.#record(`${h.signer} blake3`, h.size, h.root, "append answer");
    this.#acked.push({ signer: h.signer, index: a.index, leaf: a.leaf_hash });
  }

  /**
   * Fetches and records the checkpoints of both views of every shard of `service` (or its one log
   * when it has no directory); answers the BLAKE3 checkpoint's size and root per signer.
   */
  async checkpoints(service: string): Promise<Map<string, { size: number; root: string }>> {
    const out = new Map<string, { size: number; root: string }>();
    for (const prefix of await prefixes(service)) {
      const key = await (await fetch(shardUrl(service, prefix, "/v1/log/key"))).json();
      for (const view of ["blake3", "sha256"] as const) {
        const res = await fetch(shardUrl(service, prefix, `/log/${view}/checkpoint`));
        assert.equal(res.status, 200, `${prefix} ${view} checkpoint`);
        const { checkpoint } = await c2sp.openCheckpoint(await res.text(), key.vkeys[view]);
        const root = toHex(checkpoint.root);
        this.#record(`${key.signer} ${view}`, checkpoint.size, root, `${prefix} checkpoint`);
        if (view === "blake3") out.set(key.signer, { size: checkpoint.size, root });
      }
    }
    return out;
  }

  /** No two roots at one size under one origin (everything recorded so far). */
  assertNoFork(): void {
    assert.deepEqual(this.#forks, [], "two roots signed at one size");
  }

  /**
   * The full check: no fork, and every acknowledged entry proven by an inclusion proof from
   * `service` (the service restarted on the same files) against the checkpoint it now serves
   * (recorded too), at its index.
   */
  async assertAll(service: string): Promise<{ heads: number; entries: number }> {
    const cps = await this.checkpoints(service);
    const bases = new Map<string, string>();
    for (const prefix of await prefixes(service)) {
      const key = await (await fetch(shardUrl(service, prefix, "/v1/log/key"))).json();
      bases.set(key.signer, prefix);
    }
    let entries = 0;
    for (const a of this.#acked) {
      const cp = cps.get(a.signer);
      const prefix = bases.get(a.signer);
      assert.ok(cp && prefix, `the log of acknowledged entry ${a.index} (${a.signer}) is gone`);
      assert.ok(a.index < cp.size, `acknowledged entry ${a.index} is past the checkpoint`);
      const q = `/v1/log/proof/inclusion?index=${a.index}&size=${cp.size}`;
      const res = await fetch(shardUrl(service, prefix, q));
      assert.equal(res.status, 200, `proof of ${a.index}`);
      const p = await res.json();
      assert.equal(p.leaf_hash, a.leaf, `acknowledged entry ${a.index} changed`);
      const ok = verifyInclusion(
        blake3Hasher,
        a.index,
        cp.size,
        fromHex(a.leaf),
        (p.path as string[]).map(fromHex),
        fromHex(cp.root),
      );
      assert.ok(ok, `acknowledged entry ${a.index} not proven against the checkpoint`);
      entries++;
    }
    this.assertNoFork();
    return { heads: this.heads, entries };
  }
}

/** The shard prefixes of a service (its directory's), or `/` when it has none. */
async function prefixes(service: string): Promise<string[]> {
  const res = await fetch(`${service}/v1/logs`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return ["/"];
  }
  const body = await res.json();
  return (body.directory.shards as { prefix: string }[]).map((s) => s.prefix);
}
