// The client's directory reader (client/directory.ts) against a real HTTP server on
// 127.0.0.1: 404 is a single-shard log; the operator key pinned, remembered or trusted on first
// use, and a different one refused (`operator-key-changed`); a note that does not open, or a shard
// whose vkeys and signer are not one key, is refused with its code; the answer's size is bounded;
// shard URLs and the shard of a proof's origin.
import assert from "node:assert/strict";
import { c2sp } from "../../log/mod.ts";
import {
  type Directory,
  DIRECTORY_HEADER,
  operatorVkey,
  type ShardEntry,
  signDirectory,
} from "../../log/shards/mod.ts";
import { didKeyFromPublicKey, ed25519PublicKey } from "../../verify/mod.ts";
import { DirectoryAlarm, readDirectory, shardBase, shardByOrigin } from "../../client/directory.ts";
import { logKeyForProof } from "../../client/shard_commands.ts";
import { HttpError } from "../../client/mod.ts";
import { isNetError } from "../../net/mod.ts";

const BASE = "dir.test/log";
const OP = new Uint8Array(32).fill(3);
const OP_VKEY = operatorVkey(BASE, ed25519PublicKey(OP));

function shard(n: number, seed: number, frozen: boolean): ShardEntry {
  const name = n === 0 ? BASE : `${BASE}/s${n}`;
  const k = new Uint8Array(32).fill(seed);
  const e: ShardEntry = {
    id: `s${n}`,
    log_name: name,
    prefix: n === 0 ? "/" : `/shards/s${n}`,
    state: frozen ? "frozen" : "active",
    signer: didKeyFromPublicKey(ed25519PublicKey(k)),
    vkeys: {
      blake3: c2sp.ed25519Vkey(`${name}/blake3`, k),
      sha256: c2sp.ed25519Vkey(`${name}/sha256`, k),
    },
    first_time: "2026-01-01T00:00:00Z",
    last_time: "2026-02-01T00:00:00Z",
    size: 10 + n,
  };
  if (frozen) e.root = { blake3: btoa("b".repeat(32)), sha256: btoa("s".repeat(32)) };
  return e;
}

const DIR: Directory = {
  operator: BASE,
  issued: "2026-03-01T00:00:00Z",
  shards: [shard(0, 10, true), shard(1, 11, false)],
};

Deno.test("client directory: 404, TOFU, pinned and remembered keys, refusals with codes, bounded size", async () => {
  let answer: () => Response = () => new Response("", { status: 404 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => answer());
  const url = `http://127.0.0.1:${server.addr.port}`;
  const json = (v: unknown, status = 200) => () => Response.json(v, { status });
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof DirectoryAlarm) return e.code;
      throw e;
    }
    return "passed";
  };
  try {
    assert.equal(await readDirectory(url), undefined, "404: a single-shard log");

    const note = signDirectory(DIR, OP);
    answer = json({ operator_vkey: OP_VKEY, note, directory: DIR });
    const first = await readDirectory(url);
    assert.ok(first && first.firstUse && first.operatorVkey === OP_VKEY);
    assert.deepEqual(first.directory, DIR);
    const again = await readDirectory(`${url}/`, { known: OP_VKEY });
    assert.ok(again && !again.firstUse && again.url === url);
    assert.equal((await readDirectory(url, { operatorKey: OP_VKEY }))?.firstUse, false);

    const other = operatorVkey(BASE, ed25519PublicKey(new Uint8Array(32).fill(4)));
    assert.equal(await code(readDirectory(url, { known: other })), "operator-key-changed");
    assert.equal(await code(readDirectory(url, { operatorKey: other })), "operator-key-changed");
    answer = json({ operator_vkey: other, note, directory: DIR });
    assert.equal(await code(readDirectory(url, { known: OP_VKEY })), "operator-key-changed");
    // First use: the key the answer names must open the note.
    assert.match(await code(readDirectory(url)), /^note-/);

    answer = json({ operator_vkey: OP_VKEY, directory: DIR });
    assert.equal(await code(readDirectory(url)), "directory-malformed");
    // A shard whose signer is not its vkeys' key (signed by hand: signDirectory may refuse it).
    const mixed = structuredClone(DIR);
    mixed.shards[1].signer = shard(1, 12, false).signer;
    const text = `${DIRECTORY_HEADER}\n${JSON.stringify(mixed)}\n`;
    answer = json({
      operator_vkey: OP_VKEY,
      note: c2sp.signNote(text, [c2sp.ed25519NoteSigner(BASE, OP)]),
    });
    assert.equal(await code(readDirectory(url)), "directory-bad-shard");
    // Bounded: an answer past 2 × 4 MiB + 64 KiB is cut (net-body-too-large), never parsed.
    answer = () => new Response(new Uint8Array(9 * 1024 * 1024).fill(0x20));
    await assert.rejects(
      readDirectory(url),
      (e) => isNetError(e) && e.code === "net-body-too-large",
    );
    answer = json({ code: "internal" }, 500);
    await assert.rejects(readDirectory(url), (e) => e instanceof HttpError && e.status === 500);
  } finally {
    await server.shutdown();
  }
});

Deno.test("client directory: shard base URLs, the shard of an origin, the key of a tlog-proof", () => {
  assert.equal(shardBase("http://h:1/", DIR.shards[0]), "http://h:1");
  assert.equal(shardBase("http://h:1", DIR.shards[1]), "http://h:1/shards/s1");
  assert.equal(shardBase("https://h/base/", DIR.shards[1]), "https://h/base/shards/s1");
  assert.equal(shardByOrigin(DIR, `${BASE}/s1/sha256`)?.id, "s1");
  assert.equal(shardByOrigin(DIR, `${BASE}/blake3`)?.id, "s0");
  assert.equal(shardByOrigin(DIR, `${BASE}/s2/blake3`), undefined);
  const cp = c2sp.signCheckpoint(
    { origin: `${BASE}/s1/sha256`, size: 1, root: new Uint8Array(32) },
    new Uint8Array(32).fill(11),
  );
  const proof = c2sp.formatTlogProof({ index: 0, proof: [], checkpoint: cp });
  assert.deepEqual(logKeyForProof(proof, DIR), { shard: "s1", vkey: DIR.shards[1].vkeys.sha256 });
  const stray = c2sp.formatTlogProof({
    index: 0,
    proof: [],
    checkpoint: c2sp.signCheckpoint(
      { origin: "elsewhere/log/blake3", size: 1, root: new Uint8Array(32) },
      new Uint8Array(32).fill(11),
    ),
  });
  assert.throws(() => logKeyForProof(stray, DIR), /no shard of the directory/);
});
