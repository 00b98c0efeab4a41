// Key-event state survives SIGKILL under load (issue 25; docs/KEYS.md): 8 workers rotate their
// identities event after event (and log receipts under them) while the service is SIGKILLed,
// restarted and loaded again; every acknowledged event is in its identity's chain, and the state
// the store answers equals the state the independent Python resolver re-derives from the log's
// entries (conformance/python/jckeys). The state moves in each batch's commit transaction, so no
// crash leaves it ahead of or behind the entries. Also: `client keygen --rotation` and
// `client key-event` over the same service.
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";
import {
  blake3,
  type CborMap,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  readJcpObject,
  sealJcpObject,
} from "../../verify/mod.ts";
import { postTo, replayMatches } from "./_keys_http.ts";

const WORKERS = 8;

const secretOf = (w: number, id: number, k: number) => {
  const s = new Uint8Array(32);
  s.set([w + 1, id + 1, k + 1, 0xee]);
  return s;
};

/** Worker w's identity `id`: its events (each sealed by its current key) and receipts. */
function identity(w: number, id: number, n: number) {
  const keys = Array.from({ length: n + 1 }, (_, k) => secretOf(w, id, k));
  const did = didKeyFromPublicKey(ed25519PublicKey(keys[0]));
  const events: Uint8Array[] = [];
  let parent: Uint8Array | undefined;
  for (let seq = 0; seq < n; seq++) {
    const core = new Map<string, unknown>([
      ["identity", did],
      ["seq", seq],
      ["current", didKeyFromPublicKey(ed25519PublicKey(keys[seq]))],
      ["next_hash", blake3(ed25519PublicKey(keys[seq + 1]))],
      ["nonce", new Uint8Array(16).fill(seq)],
    ]);
    if (parent) core.set("parent", parent);
    const env = sealJcpObject(core as CborMap, keys[seq]);
    parent = readJcpObject(env)!.contentId;
    events.push(env);
  }
  const receipt = (seq: number, j: number) =>
    coseSign1(
      encodeCbor(
        new Map<string, unknown>([
          ["jc_receipt", "1"],
          ["id", `crash-${w}-${id}-${seq}-${j}`],
          ["closed_at", "2026-05-31T18:04:22Z"],
          ["input_hash", "ab".repeat(32)],
          ["tier", "L1"],
          ["joules_uj", 4200],
          ["energy_provenance", "HwShunt"],
          ["steward", did],
        ]) as CborMap,
      ),
      keys[seq],
      didKeyFromPublicKey(ed25519PublicKey(keys[seq])),
    );
  return { did, events, receipt };
}

Deno.test({
  name: "e2e keys: the key state survives SIGKILL under load, equal to the Python re-derivation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-keys-crash-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    const acked: { did: string; seq: number; index: number }[] = [];
    const dids: string[] = [];
    let killed = false, stop = false;
    // each worker's position: identity, next event; resent after the crash (answered once)
    const pos = Array.from({ length: WORKERS }, () => ({ id: 0, seq: 0 }));
    const load = (url: string, until: () => boolean) =>
      Promise.all(pos.map(async (p, w) => {
        while (!until()) {
          const idn = identity(w, p.id, 12);
          if (p.seq === 0 && !dids.includes(idn.did)) dids.push(idn.did);
          try {
            const r = await postTo(url, "/v1/keys/events", idn.events[p.seq]);
            assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
            if (r.status === 201) {
              acked.push({ did: idn.did, seq: p.seq, index: r.body.index as number });
            }
            const rr = await postTo(url, "/v1/log/entries", idn.receipt(p.seq, acked.length));
            assert.ok(rr.status === 201 || rr.status === 200, JSON.stringify(rr.body));
          } catch (e) {
            if (!killed) throw e;
            return; // the service is gone: expected after the kill
          }
          if (++p.seq === 12) p.id++, p.seq = 0;
        }
      }));
    try {
      const running = load(svc.url, () => killed);
      while (acked.length < 150) await new Promise((r) => setTimeout(r, 10));
      killed = true;
      const st = await svc.stop("SIGKILL");
      assert.equal(st.success, false);
      await running;
      killed = false;
      svc = await startService(env);
      const more = acked.length + 80;
      await load(svc.url, () => stop || acked.length >= more);
      stop = true;
      // every acknowledged event is in its identity's chain, at its seq
      for (const a of acked) {
        const got = await (await fetch(`${svc.url}/v1/keys/${a.did}`)).json();
        assert.equal(got.events[a.seq], a.index, `${a.did} seq ${a.seq}`);
      }
      await replayMatches(svc.url, dids);

      // the client: an identity made, rotated and resolved; a rotated-out key's receipt refused
      const key = `${dir}/id.key`;
      const made = await runClient(["keygen", "--rotation", "--out", key]);
      assert.equal(made.code, 0, made.stderr);
      const inc = JSON.parse(made.stdout);
      let sent = await runClient(["key-event", inc.event, "--url", svc.url]);
      assert.equal(sent.code, 0, sent.stderr);
      const rot = JSON.parse((await runClient(["keygen", "--rotation", "--out", key])).stdout);
      assert.deepEqual([rot.identity, rot.seq], [inc.identity, 1]);
      assert.notEqual(rot.current, inc.identity);
      sent = await runClient(["key-event", rot.event, "--url", svc.url]);
      assert.equal(sent.code, 0, sent.stderr);
      assert.equal(JSON.parse(sent.stdout).key_event.seq, 1);
      const again = await runClient(["key-event", inc.event, "--url", svc.url]);
      assert.equal(again.code, 0, again.stderr); // already logged: 200
      const who = await runClient(["identity", inc.identity, "--url", svc.url]);
      assert.equal(who.code, 0, who.stderr);
      assert.equal(JSON.parse(who.stdout).current, rot.current);
      // a seq gap is refused: exit 3
      const gap = JSON.parse((await runClient(["keygen", "--rotation", "--out", key])).stdout);
      const gap2 = JSON.parse((await runClient(["keygen", "--rotation", "--out", key])).stdout);
      const refused = await runClient(["key-event", gap2.event, "--url", svc.url]);
      assert.equal(refused.code, 3, refused.stdout);
      assert.match(refused.stderr, /key-event-seq-gap/);
      assert.equal((await runClient(["key-event", gap.event, "--url", svc.url])).code, 0);
      await svc.stop();
    } finally {
      stop = true;
      await svc.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
