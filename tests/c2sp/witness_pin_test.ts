// The witness's pin (log/c2sp/witness_pin.ts, log/sqlite/witness_pin_file.ts): the record's codec
// and checksum, the start rule case by case, the pinned store (the pin written before a swap
// resolves, shared by concurrent swaps, a failed write never answered), and the two-slot file on
// real files: a torn newest slot leaves the pin before it, a damaged file is refused, a record that
// outgrows its slot rewrites the file. Also the cost of a pinned cosignature, measured.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decideWitnessStart,
  decodePin,
  encodePin,
  type PinnedHead,
  pinnedWitnessState,
  type WitnessStartFacts,
} from "../../log/c2sp/witness_pin.ts";
import { memoryWitnessState } from "../../log/c2sp/witness_state.ts";
import {
  openWitnessPinFile,
  readWitnessPin,
  witnessPinPath,
} from "../../log/sqlite/witness_pin_file.ts";
import { openSqliteWitnessState } from "../../log/sqlite/witness_state.ts";

const root = (b: number) => new Uint8Array(32).fill(b);
const head = (origin: string, size: number, b = size & 0xff): PinnedHead => ({
  origin,
  size,
  root: root(b),
});
const note = new TextEncoder().encode("note");

Deno.test("witness pin: records round-trip; any flipped byte or a short record is refused", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.stringMatching(/^[a-z0-9./-]{1,40}$/), { maxLength: 8 }),
      fc.nat({ max: 2 ** 40 }),
      fc.nat(),
      (origins, size, counter) => {
        const pin = { counter, heads: origins.map((o, i) => head(o, size + i)) };
        const rec = encodePin(pin);
        const back = decodePin(rec)!;
        assert.equal(back.counter, counter);
        const byOrigin = (a: PinnedHead, b: PinnedHead) => (a.origin < b.origin ? -1 : 1);
        assert.deepEqual(back.heads.sort(byOrigin), [...pin.heads].sort(byOrigin));
        const i = (size + counter) % rec.length;
        const bad = rec.slice();
        bad[i] ^= 1;
        assert.equal(decodePin(bad), undefined, `byte ${i} flipped`);
        assert.equal(decodePin(rec.subarray(0, rec.length - 1)), undefined);
      },
    ),
  );
  // canonical: the order heads are given in does not change the record
  const a = encodePin({ counter: 1, heads: [head("b", 1), head("a", 2)] });
  const b = encodePin({ counter: 1, heads: [head("a", 2), head("b", 1)] });
  assert.deepEqual(a, b);
});

const facts = (o: Partial<WitnessStartFacts>): WitnessStartFacts => ({
  keyFile: "/k/witness-key.hex",
  stateFile: "/d/witness.sqlite",
  pinFile: "/k/witness-key.hex.pin",
  keyPresent: true,
  statePresent: true,
  statePinned: true,
  heads: [],
  pin: { counter: 1, heads: [] },
  ...o,
});
const refused = (f: WitnessStartFacts, code: string) =>
  assert.throws(() => decideWitnessStart(f), (e: Error & { code?: string }) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, /witness key/);
    assert.doesNotMatch(e.message, /log key/);
    return true;
  });

Deno.test("witness pin: the start rule, case by case", () => {
  const pin = { counter: 7, heads: [head("o1", 50), head("o2", 5)] };
  // brand-new: only with no key, no state heads, no pin
  const none = { keyPresent: false, statePresent: false, statePinned: false, pin: undefined };
  assert.deepEqual(decideWitnessStart(facts(none)), { kind: "create" });
  assert.deepEqual(decideWitnessStart(facts({ ...none, statePresent: true })), { kind: "create" });
  refused(facts({ ...none, heads: [head("o1", 3)] }), "witness-key-missing");
  refused(facts({ ...none, pin }), "witness-key-missing");
  refused(facts({ ...none, statePresent: true, statePinned: true }), "witness-key-missing");
  // a key without a pin: adopted only with a state that was never pinned
  const nopin = { pin: undefined, statePinned: false };
  assert.deepEqual(decideWitnessStart(facts({ ...nopin, heads: [head("o1", 3)] })), {
    kind: "adopt",
  });
  refused(facts({ ...nopin, statePresent: false }), "witness-state-behind");
  refused(facts({ pin: undefined, statePinned: true }), "witness-pin-missing");
  // a key with a pin: the state must reach every pinned head with the same root
  const same = [head("o1", 50), head("o2", 5)];
  assert.deepEqual(decideWitnessStart(facts({ pin, heads: same })), { kind: "resume", ahead: [] });
  refused(facts({ pin, heads: [] }), "witness-state-behind");
  refused(facts({ pin, heads: [head("o1", 50)] }), "witness-state-behind");
  refused(facts({ pin, heads: [head("o1", 49), head("o2", 5)] }), "witness-state-behind");
  refused(facts({ pin, heads: [head("o1", 50, 9), head("o2", 5)] }), "witness-state-behind");
  // ahead (a swap whose pin write did not finish; never answered): accepted, named
  assert.deepEqual(
    decideWitnessStart(facts({ pin, heads: [head("o1", 60), head("o2", 5), head("o3", 1)] })),
    { kind: "resume", ahead: ["o1", "o3"] },
  );
});

Deno.test("witness pin: a swap resolves after its pin; concurrent swaps share writes", async () => {
  const writes: PinnedHead[][] = [];
  let release: (() => void) | undefined;
  const gate = () => new Promise<void>((r) => release = r);
  let blocking = true;
  const pin = {
    async write(heads: PinnedHead[]) {
      writes.push(heads);
      if (blocking) await gate();
    },
  };
  const s = pinnedWitnessState(memoryWitnessState(), pin, []);
  let done1 = false;
  const p1 = s.compareAndSwap("a", undefined, { size: 1, root: root(1), note }).then((ok) => {
    done1 = true;
    return ok;
  });
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(done1, false, "the swap waits for its pin");
  assert.equal(writes.length, 1);
  // three more while the first write is under way: one write covers them all
  const more = [
    s.compareAndSwap("b", undefined, { size: 2, root: root(2), note }),
    s.compareAndSwap("c", undefined, { size: 3, root: root(3), note }),
    s.compareAndSwap("a", { size: 1, root: root(1) }, { size: 4, root: root(4), note }),
  ];
  await new Promise((r) => setTimeout(r, 5));
  blocking = false;
  release!();
  assert.equal(await p1, true);
  assert.deepEqual(await Promise.all(more), [true, true, true]);
  assert.equal(writes.length, 2, "the three later swaps shared one write");
  assert.deepEqual(
    writes[1].map((h) => [h.origin, h.size]).sort(),
    [["a", 4], ["b", 2], ["c", 3]],
  );
  // a lost swap writes nothing
  assert.equal(await s.compareAndSwap("b", undefined, { size: 9, root: root(9), note }), false);
  assert.equal(writes.length, 2);
});

Deno.test("witness pin: a failed pin write rejects the swap; the next swap writes it", async () => {
  let fail = true;
  const written: PinnedHead[][] = [];
  const s = pinnedWitnessState(memoryWitnessState(), {
    write(heads) {
      if (fail) return Promise.reject(new Error("disk full"));
      written.push(heads);
      return Promise.resolve();
    },
  }, []);
  await assert.rejects(
    s.compareAndSwap("a", undefined, { size: 1, root: root(1), note }),
    /disk full/,
  );
  fail = false;
  assert.equal(await s.compareAndSwap("b", undefined, { size: 2, root: root(2), note }), true);
  assert.deepEqual(written[0].map((h) => h.origin).sort(), ["a", "b"], "a's head is pinned too");
});

Deno.test("witness pin file: slots in turn; a torn newest slot leaves the pin before it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-wpin-file-" });
  const path = witnessPinPath(`${dir}/witness-key.hex`);
  assert.equal(readWitnessPin(path), undefined, "no file: no pin");
  const f = await openWitnessPinFile(path, undefined);
  await f.write([head("o", 1)]);
  await f.write([head("o", 2)]);
  await f.write([head("o", 3)]);
  await f.close();
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  const bytes = await Deno.readFile(path);
  const slot = bytes.length / 2;
  assert.deepEqual(readWitnessPin(path)?.heads.map((h) => h.size), [3]);
  // counter 3 is in slot 1: tear it
  const torn = bytes.slice();
  torn.fill(0xee, slot + 10, slot + 40);
  await Deno.writeFile(path, torn);
  const back = readWitnessPin(path)!;
  assert.equal(back.counter, 2);
  assert.deepEqual(back.heads.map((h) => h.size), [2]);
  // writing after the torn read goes on from the valid pin, into the torn slot
  const g = await openWitnessPinFile(path, back);
  await g.write([head("o", 4)]);
  await g.close();
  assert.deepEqual(readWitnessPin(path)?.heads.map((h) => h.size), [4]);
  // both slots damaged, or a 0-byte file: refused, never "no pin"
  await Deno.writeFile(path, new Uint8Array(bytes.length));
  assert.throws(() => readWitnessPin(path), /witness-pin-damaged/);
  await Deno.writeFile(path, new Uint8Array(0));
  assert.throws(() => readWitnessPin(path), /witness-pin-damaged/);
});

Deno.test("witness pin file: a record outgrowing its slot rewrites the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-wpin-grow-" });
  const path = `${dir}/k.pin`;
  const f = await openWitnessPinFile(path, undefined);
  const heads: PinnedHead[] = [];
  for (let i = 0; i < 100; i++) {
    heads.push(head(`example.test/log-${i}/with/a/long/origin/name`, i + 1));
    await f.write(heads);
  }
  await f.close();
  const back = readWitnessPin(path)!;
  assert.equal(back.counter, 100);
  assert.equal(back.heads.length, 100);
  assert.ok((await Deno.stat(path)).size >= 2 * 100 * 100, "grew");
});

Deno.test("witness pin: the cost of a pinned cosignature's state change (SQLite + pin)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-wpin-cost-" });
  const N = 200;
  const run = async (pinned: boolean) => {
    const raw = openSqliteWitnessState(`${dir}/w-${pinned}.sqlite`);
    const file = await openWitnessPinFile(`${dir}/k-${pinned}.pin`, undefined);
    await file.write([]);
    const s = pinned ? pinnedWitnessState(raw, file, []) : raw;
    const origins = Array.from({ length: 16 }, (_, i) => `example.test/log-${i}`);
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const o = origins[i % origins.length];
      const size = Math.floor(i / origins.length) + 1;
      const prev = size === 1 ? undefined : { size: size - 1, root: root(size - 1) };
      assert.equal(await s.compareAndSwap(o, prev, { size, root: root(size), note }), true);
    }
    const ms = (performance.now() - t0) / N;
    await file.close();
    await raw.close();
    return ms;
  };
  const bare = await run(false);
  const pinned = await run(true);
  console.log(
    `witness state change, 16 origins, ${N} in a row: SQLite alone ${bare.toFixed(2)} ms, ` +
      `SQLite + pin ${pinned.toFixed(2)} ms (pin: +${(pinned - bare).toFixed(2)} ms)`,
  );
});
