// Issue 18 acceptance for the client CLI: `head`, `prove`, `submit` and `monitor` over the API, and
// `prove` / `monitor` from tiles and `mirror` over the static publication, each run as a real
// subprocess (`deno run client/main.ts`) against every behaviour of the hostile server. Each
// ends within its deadline with its documented message and exit code (docs/CLIENTS.md: 4 for a
// transport failure, 2 for a failed check, 3 for a monitor alarm) and its peak RSS stays under
// 100 MB — where, before net/, an endless body grew the client past 6 GB and a silent server held it
// forever.
import assert from "node:assert/strict";
import { ROOT } from "../../fixtures/service.ts";
import { type Behaviour, BEHAVIOURS, startHostile } from "./_hostile_server.ts";
import { measure, pool } from "./_measure.ts";

const CONNECT_MS = 2000;
const TOTAL_MS = 4000;
/** Deno's own start (module loading on a loaded 2-core machine) on top of the deadline. */
const START_SLACK_MS = 12_000;
const RSS_CAP_KIB = 100 * 1024;

/** API commands, and the tile commands of the static publication (`--source tiles`, mirror). */
type Cmd = "head" | "prove" | "submit" | "monitor" | "prove-tiles" | "monitor-tiles" | "mirror";
const CMDS: Cmd[] = [
  "head",
  "prove",
  "submit",
  "monitor",
  "prove-tiles",
  "monitor-tiles",
  "mirror",
];
type Expect = { exit: number; text: RegExp };

const NET = (code: string): Expect => ({ exit: 4, text: new RegExp(`NET ${code}`) });
/** A server answer that fails a check: exit 3, or an alarm (exit 3) for a monitor. */
const CHECK = (cmd: Cmd, why: RegExp): Expect =>
  cmd.startsWith("monitor")
    ? { exit: 3, text: new RegExp(`ALARM: .*${why.source}`) }
    : { exit: 3, text: new RegExp(`CHECK FAILED: .*${why.source}`) };

/** What each command must do against each behaviour. */
function expected(b: Behaviour | "closed", cmd: Cmd): Expect {
  const tiles = cmd.endsWith("-tiles") || cmd === "mirror";
  switch (b) {
    case "silent":
    case "stall-headers":
      return NET("net-timeout");
    case "endless":
    case "big-checkpoint":
    case "big-declared":
    case "big-tile": // tiles: the checkpoint is fine, the 20 MB stream is cut at 8,192
      return NET("net-body-too-large");
    case "redirect-loop":
      return NET("net-too-many-redirects");
    case "bad-utf8": // a checkpoint note is bytes: its parser refuses them (note-not-utf8)
      return tiles ? CHECK(cmd, /note-not-utf8/) : NET("net-bad-utf8");
    case "bad-json":
      return tiles ? CHECK(cmd, /note-/) : NET("net-bad-json");
    case "closed":
      return NET("net-connect");
    case "long-proof": // the head is fine; the 100,000-hash proof is cut at its budget
      if (tiles) return NET("net-body-too-large"); // its "checkpoint" is 6.7 MB
      return cmd === "head" ? { exit: 0, text: /"verified":true/ } : NET("net-body-too-large");
    case "proof-65": // fits the budget, refused by the proof parser: a failed check, not a net error
      if (tiles) return CHECK(cmd, /note-/);
      if (cmd === "head") return { exit: 0, text: /"verified":true/ };
      if (cmd === "submit") return CHECK(cmd, /leaf hash/);
      return CHECK(cmd, /more than 64/);
    case "short-tile": // tiles: a tile of the wrong size; the API: 100 zero bytes are not JSON
      return tiles ? CHECK(cmd, /tile-bad-length/) : NET("net-bad-json");
  }
}

Deno.test("clients: head, prove, submit, monitor (API and tiles), mirror against every hostile behaviour end in time, under 100 MB, with their documented code", async () => {
  const h = startHostile();
  const tmp = await Deno.makeTempDir({ prefix: "hostile-clients-" });
  try {
    const envelope = `${tmp}/envelope.cose`;
    await Deno.writeFile(envelope, crypto.getRandomValues(new Uint8Array(200)));
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedUrl = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`;
    l.close();
    const runs: { b: Behaviour | "closed"; cmd: Cmd }[] = [];
    for (const b of [...BEHAVIOURS, "closed" as const]) {
      for (const cmd of CMDS) runs.push({ b, cmd });
    }
    let n = 0;
    const results = await pool(
      3,
      runs.map(({ b, cmd }) => async () => {
        const url = b === "closed" ? closedUrl : h.base(b);
        const state = `${tmp}/state-${n++}.json`;
        // the monitor has seen head 3 of this key: it must ask for a consistency proof
        await Deno.writeTextFile(
          state,
          JSON.stringify({ version: 1, urls: {}, heads: { [h.signer]: [h.head(3)] } }),
        );
        const tiles = ["--source", "tiles", "--log-key", h.vkey];
        const args = {
          head: ["head", "--url", url],
          prove: ["prove", "1", "--url", url],
          submit: ["submit", envelope, "--url", url],
          monitor: ["monitor", url, "--state", state, "--once"],
          "prove-tiles": ["prove", "1", "--url", url, ...tiles],
          "monitor-tiles": ["monitor", url, "--state", `${state}.tiles`, "--once", ...tiles],
          mirror: ["mirror", url, `${tmp}/mirror-${n}`, "--log-key", h.vkey],
        }[cmd];
        const r = await measure(Deno.execPath(), [
          "run",
          "-A",
          `${ROOT}client/main.ts`,
          ...args,
        ], {
          env: { JC_CONNECT_TIMEOUT_MS: String(CONNECT_MS), JC_TIMEOUT_MS: String(TOTAL_MS) },
          watchdogMs: 40_000,
        });
        return { b, cmd, r };
      }),
    );
    const report = results.map(({ b, cmd, r }) =>
      `${cmd} × ${b}: exit ${r.code} in ${Math.round(r.ms)} ms, peak ${
        Math.round(r.peakKiB / 1024)
      } MB`
    );
    console.log(report.join("\n"));
    for (const { b, cmd, r } of results) {
      const want = expected(b, cmd);
      const what = `${cmd} × ${b} (exit ${r.code}, ${Math.round(r.ms)} ms)\n${r.stderr}${r.stdout}`;
      assert.equal(r.killed, false, `hung: ${what}`);
      assert.equal(r.code, want.exit, what);
      assert.match(r.stderr + r.stdout, want.text, what);
      assert.ok(r.ms < TOTAL_MS + START_SLACK_MS, `past its deadline: ${what}`);
      assert.ok(r.peakKiB > 0, `no RSS measured: ${what}`);
      assert.ok(r.peakKiB < RSS_CAP_KIB, `${r.peakKiB} KiB: ${what}`);
      if (want.exit === 4) assert.match(r.stderr, /limit: .+; seen: .+/, what);
    }
  } finally {
    await h.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("clients: the monitor reports each transport failure (never silently) and gives up after --max-failures", async () => {
  const h = startHostile();
  const tmp = await Deno.makeTempDir({ prefix: "hostile-monitor-" });
  try {
    const r = await measure(Deno.execPath(), [
      "run",
      "-A",
      `${ROOT}client/main.ts`,
      "monitor",
      h.base("silent"),
      "--state",
      `${tmp}/state.json`,
      "--interval",
      "0.1",
      "--max-failures",
      "3",
    ], {
      env: { JC_CONNECT_TIMEOUT_MS: "300", JC_TIMEOUT_MS: "600" },
      watchdogMs: 40_000,
    });
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stderr.match(/monitor: NET net-timeout/g)?.length, 3, r.stderr);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    for (const l of lines) assert.deepEqual([l.ok, l.error], [false, "net-timeout"]);
    assert.ok(r.peakKiB < RSS_CAP_KIB);
    // nothing was saved: a failed poll changes no state
    await assert.rejects(Deno.stat(`${tmp}/state.json`));
  } finally {
    await h.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
