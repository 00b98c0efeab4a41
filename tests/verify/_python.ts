// Test helper: run a Python script with Debian's /usr/bin/python3 (python3-cbor2, python3-nacl),
// feeding JSON on stdin and reading JSON from stdout. A missing interpreter or module FAILS loudly.
export async function runPython(script: string, input: unknown): Promise<unknown> {
  const cmd = new Deno.Command("/usr/bin/python3", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
  let child: Deno.ChildProcess;
  try {
    child = cmd.spawn();
  } catch (e) {
    throw new Error(`Cannot run /usr/bin/python3 for a cross-check: ${(e as Error).message}`);
  }
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify(input)));
  await w.close();
  const out = await child.output();
  const err = new TextDecoder().decode(out.stderr);
  if (!out.success) {
    throw new Error(
      `Cannot run the Python cross-check (exit ${out.code}); install python3-cbor2 / python3-nacl:\n${err}`,
    );
  }
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
