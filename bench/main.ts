// `deno task bench [suite ...]`: runs every suite in bench/suites/ (or the named ones) and prints
// one JSON object. Each suite module default-exports `async () => Record<string, unknown>` and
// reports, beside each figure, the machine's own limit measured in the same run (for example raw
// Ed25519 verifies/s), so that ratios survive a noisy machine.
const dir = new URL("./suites/", import.meta.url);
const wanted = new Set(Deno.args);
const names: string[] = [];
for await (const e of Deno.readDir(dir)) {
  if (e.isFile && e.name.endsWith(".ts")) names.push(e.name.slice(0, -3));
}
names.sort();
const out: Record<string, unknown> = {
  machine: {
    cpus: navigator.hardwareConcurrency,
    deno: Deno.version.deno,
    date: new Date().toISOString(),
  },
};
for (const name of names) {
  if (wanted.size && !wanted.has(name)) continue;
  const mod = await import(new URL(`${name}.ts`, dir).href);
  if (typeof mod.default !== "function") continue; // a helper module, not a suite
  const t0 = performance.now();
  try {
    out[name] = await mod.default();
  } catch (err) {
    out[name] = { error: String(err instanceof Error ? err.stack ?? err.message : err) };
  }
  console.error(`bench ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
console.log(JSON.stringify(out, null, 2));
