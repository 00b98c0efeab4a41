// docs/VERIFYING.md's worked example, as printed there, run with Debian's python3 against the real
// service: it checks a receipt's envelope, the latest signed head, the receipt's inclusion proof
// and a consistency proof from an earlier head — none of it with our code. And it can fail: a
// receipt the log does not hold (one flipped byte) is refused.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { ROOT, startService } from "../../fixtures/service.ts";

function pythonBlock(md: string): string {
  const blocks = [...md.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, "VERIFYING.md has one Python example");
  return blocks[0];
}

async function python(script: string, args: string[]) {
  let o: Deno.CommandOutput;
  try {
    o = await new Deno.Command("/usr/bin/python3", {
      args: [script, ...args],
      env: { PYTHONDONTWRITEBYTECODE: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error(`Cannot run /usr/bin/python3 (Debian python3): ${(e as Error).message}`);
  }
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

Deno.test({
  name: "docs/VERIFYING.md: the worked example checks receipt, head, inclusion and consistency",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-verifying-" });
    const svc = await startService({ JC_STORE: "memory" });
    try {
      const script = `${dir}/verify_by_hand.py`;
      await Deno.writeTextFile(
        script,
        pythonBlock(await Deno.readTextFile(`${ROOT}docs/VERIFYING.md`)),
      );
      const client = new LogClient(svc.url);
      for (const f of ["receipt", "policy", "jcp2"]) {
        await client.submit(await Deno.readFile(`${ROOT}examples/${f}.cose`));
      }
      for (const [file, old] of [["receipt", "1"], ["jcp2", "2"], ["policy", "1"]]) {
        const r = await python(script, [svc.url, `${ROOT}examples/${file}.cose`, old]);
        assert.equal(r.code, 0, `${file}: ${r.err} (needs python3-cbor2 python3-nacl b3sum)`);
        const said = JSON.parse(r.out);
        assert.equal(said.size, 3);
        assert.equal(said.consistent_from, Number(old));
        assert.equal(said.index, { receipt: 0, policy: 1, jcp2: 2 }[file]);
      }
      // A receipt the log does not hold: its signature fails (a flipped payload byte).
      const bytes = await Deno.readFile(`${ROOT}examples/receipt.cose`);
      bytes[bytes.length - 70] ^= 1;
      await Deno.writeFile(`${dir}/tampered.cose`, bytes);
      const bad = await python(script, [svc.url, `${dir}/tampered.cose`, "1"]);
      assert.notEqual(bad.code, 0, bad.out);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
