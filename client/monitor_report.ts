// How the monitor reports a failed poll that proves nothing about the log (issue 18,
// docs/CLIENTS.md): never silently, never as an alarm. A transport failure (net/ NetError) prints
// `monitor: NET <code>: ...` on stderr and a JSON line on stdout; an HTTP error status prints
// `monitor: cannot poll ...`. After `--max-failures` (default 10) failed polls in a row, or at once
// with `--once`, the monitor stops: exit 4 when the last failure was a transport one, else 1.

/** Failed polls in a row so far (reset by the caller on success). */
export interface FailureCount {
  n: number;
}

/** Reports one failed poll; returns the exit status when the monitor must stop, else undefined. */
export function reportFailedPoll(
  url: string,
  r: { alarm: string; code?: string },
  flags: Record<string, string | true>,
  failures: FailureCount,
): number | undefined {
  if (r.code) {
    console.error(`monitor: NET ${r.code}: ${r.alarm}`);
    console.log(JSON.stringify({ ok: false, url, error: r.code, detail: r.alarm }));
  } else {
    console.error(`monitor: cannot poll ${url} now: ${r.alarm}`);
  }
  const max = Number(flags["max-failures"] ?? 10);
  if (flags.once || ++failures.n >= max) return r.code ? 4 : 1;
  return undefined;
}
