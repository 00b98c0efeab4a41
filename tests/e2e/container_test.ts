// The container recipe (Dockerfile, docs/OPERATIONS.md "Container"): the image cannot be built
// where the tests run, so this runs what it would run — the ENTRYPOINT's exact command line, in
// the WORKDIR's place (the repository root), with the Dockerfile's ENV (PORT and DATA_DIR moved to
// a free port and a temporary directory) — and checks that the service listens on the address the
// ENV names, answers /healthz, and stops cleanly (exit 0) on the SIGTERM `docker stop` sends.
import assert from "node:assert/strict";
import { ROOT } from "../../fixtures/service.ts";

/** The Dockerfile's instructions that matter here. */
export function parseDockerfile(text: string) {
  const lines = text.split("\n").filter((l) => l.trim() && !l.trimStart().startsWith("#"));
  const arg = (kw: string) =>
    lines.filter((l) => l.startsWith(`${kw} `)).map((l) => l.slice(kw.length + 1).trim());
  const env: Record<string, string> = {};
  for (const e of arg("ENV")) {
    for (const [, k, v] of e.matchAll(/([A-Z_]+)=(\S+)/g)) env[k] = v;
  }
  const entry = arg("ENTRYPOINT");
  assert.equal(entry.length, 1, "one ENTRYPOINT");
  assert.equal(arg("CMD").length, 0, "no CMD: the ENTRYPOINT is the whole command");
  return {
    from: arg("FROM"),
    workdir: arg("WORKDIR"),
    env,
    entrypoint: JSON.parse(entry[0]) as string[],
  };
}

Deno.test({
  name:
    "Dockerfile: the official Deno image at the pinned version; its ENTRYPOINT serves and stops on SIGTERM",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const d = parseDockerfile(await Deno.readTextFile(`${ROOT}Dockerfile`));
    assert.deepEqual(d.from, [`denoland/deno:${Deno.version.deno}`], "the Deno this project pins");
    assert.match(
      await Deno.readTextFile(`${ROOT}README.md`),
      new RegExp(`deno@${Deno.version.deno}`),
    );
    assert.deepEqual(d.workdir, ["/app"]);
    assert.equal(d.env.HOST, "0.0.0.0", "reachable from outside the container");
    assert.equal(d.env.DATA_DIR, "/data");
    assert.equal(d.entrypoint[0], "deno");
    assert.ok(
      !d.entrypoint.includes("task"),
      "deno run directly: the stop signal reaches the service",
    );
    const dockerignore = await Deno.readTextFile(`${ROOT}.dockerignore`);
    for (const p of ["data/", "*.key", "node_modules/"]) assert.ok(dockerignore.includes(p), p);

    const dir = await Deno.makeTempDir({ prefix: "jc-container-" });
    const child = new Deno.Command(Deno.execPath(), {
      args: d.entrypoint.slice(1),
      cwd: ROOT,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: dir,
        DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
        ...d.env,
        PORT: "0",
        DATA_DIR: `${dir}/data`,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const errText = new Response(child.stderr).text();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let line = "";
      while (!line.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`it exited before listening: ${await errText}`);
        line += value;
      }
      const hello = JSON.parse(line.slice(0, line.indexOf("\n")));
      assert.match(hello.listening, /^http:\/\/0\.0\.0\.0:\d+$/);
      const port = new URL(hello.listening).port;
      const h = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(h.status, 200);
      assert.equal((await h.json()).status, "ok");
      await Deno.stat(`${dir}/data/log-key.hex`); // the log and its key in the volume
      child.kill("SIGTERM");
      const st = await child.status;
      assert.equal(st.code, 0);
      assert.match(
        await errText,
        /Received SIGTERM: draining and shutting down\nShut down cleanly/,
      );
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
      await reader.cancel().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
