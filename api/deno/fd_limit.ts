// The process's file-descriptor limit (RLIMIT_NOFILE, POSIX getrlimit/setrlimit), read and raised
// at start by the Deno entry (issue 27 "Connections"): every connection holds a descriptor, and the
// connection cap (api/deno/conn_server.ts) is set below the limit so that accepting never runs out of
// them. The soft limit is raised to the hard limit where the platform allows it (an unprivileged
// process may raise its soft limit up to its hard limit: POSIX setrlimit, Linux getrlimit(2)).
// Linux only, through libc by Deno.dlopen (the entry runs with -A); elsewhere, or when libc cannot
// be opened, the limit is read from /proc/self/limits or left unknown.

/** The descriptor limits after start: `raisedFrom` is the soft limit found, when it was raised. */
export interface FdLimit {
  soft: number;
  hard: number;
  raisedFrom?: number;
}

/** Linux <bits/resource.h>: RLIMIT_NOFILE. */
const RLIMIT_NOFILE = 7;
/** Never ask for more than this, even under an unlimited hard limit (Linux's default nr_open). */
const CEILING = 1 << 20;

/**
 * Raises the soft RLIMIT_NOFILE to the hard one (at most 2^20) and returns both; `undefined` where
 * neither libc nor /proc/self/limits can tell. Never throws.
 *
 * @example
 * ```ts
 * const lim = raiseFdLimit(); // { soft: 1048576, hard: 1048576, raisedFrom: 1024 }
 * ```
 */
export function raiseFdLimit(): FdLimit | undefined {
  if (Deno.build.os !== "linux") return undefined;
  let lib: Deno.DynamicLibrary<typeof SYMBOLS> | undefined;
  try {
    lib = Deno.dlopen("libc.so.6", SYMBOLS);
  } catch {
    return procLimits();
  }
  try {
    const buf = new BigUint64Array(2); // struct rlimit { rlim_t rlim_cur, rlim_max; }
    if (lib.symbols.getrlimit(RLIMIT_NOFILE, buf) !== 0) return procLimits();
    const soft = clamp(buf[0]);
    const hard = clamp(buf[1]);
    if (soft >= hard) return { soft, hard };
    buf[0] = BigInt(hard);
    if (lib.symbols.setrlimit(RLIMIT_NOFILE, buf) !== 0) return { soft, hard };
    return { soft: hard, hard, raisedFrom: soft };
  } catch {
    return procLimits();
  } finally {
    lib.close();
  }
}

const SYMBOLS = {
  getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
  setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
} as const;

function clamp(v: bigint): number {
  return v > BigInt(CEILING) ? CEILING : Number(v);
}

/** `Max open files  SOFT  HARD  files` of /proc/self/limits (proc(5)). */
function procLimits(): FdLimit | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(
      Deno.readTextFileSync("/proc/self/limits"),
    );
    if (!m) return undefined;
    const n = (s: string) => s === "unlimited" ? CEILING : Math.min(CEILING, Number(s));
    return { soft: n(m[1]), hard: n(m[2]) };
  } catch {
    return undefined;
  }
}
