// A timer that must not keep its process alive (a watchdog, a snapshot's end): one portable form
// for every runtime the code runs in — Deno (Deno.unrefTimer), Node (Timeout.unref), and workerd
// or a browser, which have neither and need nothing (a Worker's isolate ends with its request).
/** Lets `t` not keep the process alive, where the runtime can say so. */
export function unrefTimer(t: ReturnType<typeof setTimeout>): void {
  const deno = (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno;
  if (deno) deno.unrefTimer(Number(t));
  else (t as unknown as { unref?: () => void }).unref?.();
}
