// `deno task edge` as the README runs it: bundles the Worker, starts local workerd on PORT with
// durable state in EDGE_STATE and a log key generated once and kept there, prints one JSON line,
// serves the API, and stops on SIGTERM. A second start reuses the key (same signer).
import assert from "node:assert/strict";
import { repoPath } from "../../edge/mod.ts";

async function runTask(
  state: string,
): Promise<{ signer: string; operator: string; url: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "edge"],
    cwd: repoPath("."),
    env: { PORT: "0", EDGE_STATE: state, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errText = child.stderr.pipeThrough(new TextDecoderStream());
  let err = "";
  const errDone = (async () => {
    for await (const c of errText) err += c;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  try {
    while (!buf.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) {
        throw new Error(`Cannot start deno task edge: it exited\n${err}`);
      }
      buf += value;
    }
    const hello = JSON.parse(buf.slice(0, buf.indexOf("\n")));
    assert.equal(hello.state, state);
    const health = await fetch(hello.listening + "/healthz");
    assert.equal(health.status, 200, await health.clone().text());
    await health.body?.cancel();
    // PORT=0 included: the task sets the Worker's public URL (JC_PUBLIC_URL) to its own address
    const policy = await (await fetch(hello.listening + "/v1/log/policy"))
      .text();
    assert.ok(policy.includes(hello.listening + "/"), policy);
    const key = await (await fetch(hello.listening + "/v1/log/key")).json();
    // The operator key (docs/SHARDS.md) is generated and kept like the log key: /v1/logs signs.
    const logs = await fetch(hello.listening + "/v1/logs");
    assert.equal(logs.status, 200, await logs.clone().text());
    assert.equal((await logs.json()).operator_vkey, key.operator_vkey);
    return {
      signer: key.signer,
      operator: key.operator_vkey as string,
      url: hello.listening,
    };
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
    await errDone.catch(() => {});
    assert.ok(
      status.success || status.signal === "SIGTERM",
      `exit ${status.code}\n${err}`,
    );
  }
}

Deno.test({
  name: "edge: `deno task edge` serves the Worker locally and keeps its key and state",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-task-" });
    try {
      const first = await runTask(state);
      assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const keyFile = (await Deno.readTextFile(`${state}/jc-log-key.hex`))
        .trim();
      assert.match(keyFile, /^[0-9a-f]{64}$/);
      assert.equal(
        (await Deno.stat(`${state}/jc-log-key.hex`)).mode! & 0o777,
        0o600,
      );
      const opFile = (await Deno.readTextFile(`${state}/jc-operator-key.hex`))
        .trim();
      assert.match(opFile, /^[0-9a-f]{64}$/);
      assert.equal(
        (await Deno.stat(`${state}/jc-operator-key.hex`)).mode! & 0o777,
        0o600,
      );
      const second = await runTask(state);
      assert.equal(second.signer, first.signer);
      assert.equal(
        second.operator,
        first.operator,
        "the same operator key on restart",
      );
    } finally {
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
