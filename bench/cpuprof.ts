// `deno run -A bench/cpuprof.ts FILE.cpuprofile OPS [--top N] [--inclusive] [--tree FUNCTION]`:
// reads a V8 CPU profile (`deno run --cpu-prof`) and prints, per operation (OPS: how many the
// profiled run did), the time each function took itself (`--inclusive`: with its callees; `--tree
// F`: the call tree below every frame of F). The figures of docs/PERFORMANCE.md come from it.
//
// A V8 profile samples one thread by wall clock: a thread the kernel took off its core is charged
// to the frame it was in (often a system call that woke another thread). Read such figures beside
// the thread's CPU time from /proc, on a machine as quiet as can be had.

/** One node of a V8 CPU profile. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A V8 CPU profile (the `.cpuprofile` JSON). */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A frame's name: function, file (last path segment) and line. */
export function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\//, "");
  return `${f.functionName || "(anonymous)"} ${file}${file ? `:${f.lineNumber + 1}` : ""}`;
}

/** µs sampled in each node itself. */
function selfTimes(p: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  return self;
}

/** µs sampled in each node and everything below it. */
function subtreeTimes(
  p: CpuProfile,
  self: Map<number, number>,
  byId: Map<number, ProfileNode>,
): Map<number, number> {
  const total = new Map<number, number>();
  const sum = (id: number): number => {
    let t = self.get(id) ?? 0;
    for (const c of byId.get(id)!.children ?? []) t += sum(c);
    total.set(id, t);
    return t;
  };
  sum(p.nodes[0].id);
  return total;
}

/** µs per frame name, self time (or inclusive: the frame's subtrees, outermost frame only). */
export function perFunction(p: CpuProfile, inclusive = false): Map<string, number> {
  const self = selfTimes(p);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  if (!inclusive) {
    for (const [id, t] of self) {
      const k = frameName(byId.get(id)!);
      out.set(k, (out.get(k) ?? 0) + t);
    }
    return out;
  }
  const total = subtreeTimes(p, self, byId);
  const walk = (id: number, open: Set<string>) => {
    const k = frameName(byId.get(id)!);
    if (!open.has(k)) {
      out.set(k, (out.get(k) ?? 0) + total.get(id)!);
      open = new Set(open).add(k);
    }
    for (const c of byId.get(id)!.children ?? []) walk(c, open);
  };
  walk(p.nodes[0].id, new Set());
  return out;
}

/** The call tree below every frame named `fn` (function name), merged, as indented lines. */
export function treeBelow(
  p: CpuProfile,
  fn: string,
  ops: number,
  depth = 4,
  minUs = 0.3,
): string[] {
  const self = selfTimes(p);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const total = subtreeTimes(p, self, byId);
  interface Merged {
    t: number;
    s: number;
    kids: Map<string, Merged>;
  }
  const root: Merged = { t: 0, s: 0, kids: new Map() };
  const add = (m: Merged, id: number, d: number) => {
    const n = byId.get(id)!;
    const k = frameName(n);
    let c = m.kids.get(k);
    if (!c) m.kids.set(k, c = { t: 0, s: 0, kids: new Map() });
    c.t += total.get(id)!;
    c.s += self.get(id) ?? 0;
    if (d < depth) { for (const ch of n.children ?? []) add(c, ch, d + 1); }
  };
  const find = (id: number) => {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === fn) return add(root, id, 0);
    for (const c of n.children ?? []) find(c);
  };
  find(p.nodes[0].id);
  const lines: string[] = [];
  const print = (m: Merged, indent: string) => {
    for (const [k, c] of [...m.kids].sort((a, b) => b[1].t - a[1].t)) {
      if (c.t / ops < minUs) continue;
      lines.push(`${indent}${(c.t / ops).toFixed(2)} µs (self ${(c.s / ops).toFixed(2)}) ${k}`);
      print(c, indent + "  ");
    }
  };
  print(root, "");
  return lines;
}

if (import.meta.main) {
  const [file, opsArg, ...rest] = Deno.args;
  const ops = Number(opsArg);
  if (!file || !(ops > 0)) {
    console.error(
      "usage: bench/cpuprof.ts FILE.cpuprofile OPS [--top N] [--inclusive] [--tree FUNCTION]",
    );
    Deno.exit(2);
  }
  const p = JSON.parse(await Deno.readTextFile(file)) as CpuProfile;
  const opt = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const tree = opt("--tree");
  if (tree) {
    for (const l of treeBelow(p, tree, ops, 6)) console.log(l);
  } else {
    const m = perFunction(p, rest.includes("--inclusive"));
    const all = [...perFunction(p).values()].reduce((a, b) => a + b, 0);
    console.log(`${(all / ops).toFixed(2)} µs sampled per op (${(all / 1000).toFixed(0)} ms)`);
    const top = Number(opt("--top") ?? 30);
    for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(
        `${(t / ops).toFixed(2).padStart(8)} µs ${(100 * t / all).toFixed(1).padStart(5)}%  ${k}`,
      );
    }
  }
}
