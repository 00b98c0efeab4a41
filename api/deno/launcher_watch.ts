// The service stops with whatever launched it (issue 28). `npx -y deno@2.9.6 task start` is four
// processes: `npm exec` (node) → `sh -c 'deno' task start` (npm's script shell) → `deno task` →
// `deno run api/deno/main.ts`. A SIGTERM to the outermost (what `kill $!`, a process supervisor or a
// container stop sends) is forwarded by npm to its shell, which dies without forwarding it; `deno
// task` (which does forward SIGTERM/SIGINT to its child) never hears of it and the service ran on
// as an orphan. Nothing here can change npm or sh, so the service watches its launchers: its
// parent and, going up, every process that is still a launcher (`deno task`, a shell running
// `deno … task`, `npm exec` / `npx`), stopping at the first that is not one (an interactive shell,
// a supervisor, init). When one of them is gone (its pid no longer names the process with the
// start time seen at start), the service shuts down as on SIGTERM. A shell or supervisor above the
// launchers is not watched, so `nohup deno task start &` still outlives the terminal. Linux only
// (/proc); elsewhere nothing is watched. docs/DECISIONS.md "Stopping with the launcher".

/** One process as /proc shows it. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: a pid reused by another process has another. */
  start: string;
  argv: string[];
}

/** The process `pid` from /proc, or undefined when there is none (or no /proc). */
export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // after "pid (comm) ": state ppid … field 22 (starttime) is the 20th (proc(5))
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
    const argv = cmdline.split("\0").filter((a) => a !== "");
    return { pid, ppid: Number(f[1]), start: f[19], argv };
  } catch {
    return undefined;
  }
}

const base = (p: string | undefined) => (p ?? "").replace(/^.*[\\/]/, "");

/**
 * Whether `argv` is a launcher of the service: `deno task …`, a shell `-c` running `deno … task`
 * (npm's script shell), or `npm exec` / `npx` (node sets its title: "npm exec deno@2.9.6 task …").
 */
export function isLauncher(argv: string[]): boolean {
  const cmd = base(argv[0]);
  const line = argv.join(" ");
  if (/^deno(\.exe)?$/.test(cmd)) return argv.slice(1).includes("task");
  if (/^(sh|dash|bash|zsh)$/.test(cmd) && argv[1] === "-c") {
    return /\bdeno\b.*\btask\b/.test(argv.slice(2).join(" "));
  }
  if (/^(npm exec|npx)( |$)/.test(line)) return true;
  return cmd === "node" && /(npx|npm)-cli\.js$/.test(argv[1] ?? "") &&
    (base(argv[1]) === "npx-cli.js" || argv.includes("exec"));
}

/** The launchers of process `pid`: its parent and up, while each is a launcher. */
export function launcherChain(pid: number = Deno.pid): ProcInfo[] {
  const out: ProcInfo[] = [];
  let p = readProc(pid);
  while (p && p.ppid > 1) {
    const parent = readProc(p.ppid);
    if (!parent || !isLauncher(parent.argv)) break;
    out.push(parent);
    p = parent;
  }
  return out;
}

/**
 * Calls `onGone` once when a launcher of this process (launcherChain, read now) is gone; checks
 * every `intervalMs`. Returns a function that stops watching.
 */
export function watchLaunchers(
  onGone: (who: ProcInfo) => void,
  intervalMs = 500,
  chain: ProcInfo[] = launcherChain(),
): () => void {
  if (chain.length === 0) return () => {};
  const timer = setInterval(() => {
    const gone = chain.find((l) => readProc(l.pid)?.start !== l.start);
    if (!gone) return;
    clearInterval(timer);
    onGone(gone);
  }, intervalMs);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
