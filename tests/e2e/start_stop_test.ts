// Starting and stopping as a user does (issue 28), with real processes:
//  - `deno task start --help` and `deno task edge --help` print their usage and exit 0 creating
//    nothing (no data directory, no key, no edge state, no bundle); an unknown option is usage on
//    stderr, exit 2, nothing created;
//  - one service per data directory: a second start on a held directory is refused
//    (`data-dir-locked`, naming the holder's pid) and the first keeps serving; fsck and backup
//    still read the held directory; the lock goes with its holder, SIGTERM or SIGKILL;
//  - SIGTERM sent to the outermost `npx -y deno@2.9.6 task -q start` alone (the README's command;
//    what `kill $!`, a supervisor or a container stop hits) stops the service gracefully and leaves
//    no process behind (it used to run on as an orphan); so does SIGINT to its process group (what
//    Ctrl-C sends). A SIGINT to npm alone is held by npm's `sh -c` until its child ends (dash's
//    wait-and-cooperative-exit), so it never reaches a process that could act on it
//    (docs/DECISIONS.md "Stopping with the launcher").
import assert from "node:assert/strict";
import { ROOT, startService } from "../../fixtures/service.ts";
import { launcherChain, readProc } from "../../api/deno/launcher_watch.ts";

const dec = new TextDecoder();

/** Runs `deno …args` to its end; past 60 s it is stopped (SIGTERM): a server that should not run. */
async function run(args: string[], env: Record<string, string>) {
  const o = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", PORT: "0", HOST: "127.0.0.1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  return { code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr) };
}

/** Names under `dir` (recursively), sorted: what a command created. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      out.push(rel + e.name);
      if (e.isDirectory) await walk(`${d}/${e.name}`, `${rel}${e.name}/`);
    }
  };
  await walk(dir, "");
  return out.sort();
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("deno task start|edge --help: usage, exit 0, nothing created; unknown options: exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-help-" });
  const rootData = await exists(`${ROOT}/data`);
  const bundle = `${ROOT}/edge/dist/worker.js`;
  const bundleBefore = (await Deno.stat(bundle).catch(() => undefined))?.mtime?.getTime();
  const env = {
    DATA_DIR: `${dir}/data`,
    JC_KEY_FILE: `${dir}/key.hex`,
    EDGE_STATE: `${dir}/edge-state`,
  };
  try {
    for (const task of ["start", "edge"]) {
      for (const help of ["--help", "-h"]) {
        const r = await run(["task", "-q", task, help], env);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, new RegExp(`^Usage: deno task ${task} \\[options\\]`));
        assert.match(r.stdout, task === "start" ? /docs\/CONFIG\.md/ : /docs\/EDGE\.md/);
        assert.match(r.stdout, task === "start" ? /DATA_DIR/ : /EDGE_STATE/);
        assert.doesNotMatch(r.stdout, /^\{"listening"/m, "no server started");
        assert.equal(r.stderr, "");
      }
      const bad = await run(["task", "-q", task, "--bogus"], env);
      assert.equal(bad.code, 2, bad.stderr);
      assert.equal(bad.stdout, "");
      assert.match(
        bad.stderr,
        new RegExp(`^deno task ${task}: unknown option --bogus\\n\\nUsage:`),
      );
    }
    assert.deepEqual(await tree(dir), [], "nothing created: no data dir, no key, no edge state");
    assert.equal(await exists(`${ROOT}/data`), rootData, "no ./data created");
    const bundleAfter = (await Deno.stat(bundle).catch(() => undefined))?.mtime?.getTime();
    assert.equal(bundleAfter, bundleBefore, "edge/dist/worker.js not rebuilt");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "one service per data directory: the second start names the holder; fsck and backup still read",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-lock-" });
    const data = `${dir}/data`;
    const a = await startService({ DATA_DIR: data });
    try {
      const body = await Deno.readFile(`${ROOT}/examples/receipt.cose`);
      const post = () =>
        fetch(`${a.url}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body,
        });
      const first = await post();
      assert.equal(first.status, 201, await first.text());
      const b = await run(["task", "-q", "start"], { DATA_DIR: data });
      assert.equal(b.code, 1, b.stderr);
      assert.equal(b.stdout, "");
      assert.match(b.stderr, /^Cannot open the data directory .*data: another service holds it/);
      assert.match(b.stderr, new RegExp(`\\(pid ${a.pid}, since \\d{4}-`));
      assert.match(b.stderr, /\(data-dir-locked\)\n$/);
      // the holder is untouched: healthy, and it appends
      const h = await fetch(`${a.url}/healthz`);
      assert.equal(h.status, 200, await h.text());
      const again = await post();
      assert.equal(again.status, 200, "the same receipt: answered with its entry");
      await again.body?.cancel();
      // the readers of a running service's directory do not take the lock
      const fsck = await run(["task", "-q", "fsck", data], {});
      assert.equal(fsck.code, 0, fsck.stderr + fsck.stdout);
      assert.equal(JSON.parse(fsck.stdout).ok, true);
      const backup = await run(["task", "-q", "backup", data, `${dir}/backup`], {});
      assert.equal(backup.code, 0, backup.stderr + backup.stdout);
    } finally {
      await a.stop();
    }
    // released by a graceful stop, and by a crash (the kernel drops the holder's lock)
    const c = await startService({ DATA_DIR: data });
    assert.equal((await c.stop("SIGKILL")).success, false);
    const d = await startService({ DATA_DIR: data });
    try {
      const h = await fetch(`${d.url}/healthz`);
      assert.equal(h.status, 200, await h.text());
    } finally {
      await d.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

for (const [signal, to] of [["SIGTERM", "npx"], ["SIGINT", "group"]] as const) {
  Deno.test({
    name: `${signal} to ${
      to === "npx" ? "the npx process" : "the process group of"
    } npx -y deno@2.9.6 task -q start stops the service; no process is left`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "jc-npx-" });
      const npx = new Deno.Command("npx", {
        args: ["-y", "deno@2.9.6", "task", "-q", "start"],
        cwd: ROOT,
        env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: `${dir}/data`, NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        detached: true, // its own process group, as a terminal's foreground job has
      }).spawn();
      const errText = new Response(npx.stderr).text();
      const reader = npx.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let line = "";
      while (!line.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`npx exited before listening: ${await errText}`);
        line += value;
      }
      const hello = JSON.parse(line.slice(0, line.indexOf("\n")));
      // the chain the README's command makes: npm exec → sh -c → deno task → deno run
      const chain = [readProc(hello.pid)!, ...launcherChain(hello.pid)];
      try {
        assert.ok(chain.some((p) => p.pid === npx.pid), JSON.stringify(chain));
        const res = await fetch(`${hello.listening}/healthz`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
        Deno.kill(to === "npx" ? npx.pid : -npx.pid, signal);
        await npx.status;
        const deadline = Date.now() + 30_000;
        let left = chain;
        while (Date.now() < deadline) {
          left = chain.filter((p) => readProc(p.pid)?.start === p.start);
          if (left.length === 0) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.deepEqual(left.map((p) => p.argv.join(" ")), [], "processes left running");
        await reader.cancel().catch(() => {});
        const err = await errText;
        assert.match(err, /draining and shutting down\nShut down cleanly/, err);
        // graceful: the data directory's lock is free and the log opens again
        const again = await startService({ DATA_DIR: `${dir}/data` });
        await again.stop();
      } finally {
        for (const p of chain) {
          if (readProc(p.pid)?.start === p.start) Deno.kill(p.pid, "SIGKILL");
        }
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
