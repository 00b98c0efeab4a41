// Oxigraph with a memory ceiling (issue 15). Oxigraph's WebAssembly module declares its linear
// memory without a maximum (WebAssembly Core §5.5.11, memory section: flags 0, initial pages), so
// a cartesian product or an unbounded property path grows it until the process runs out. Here
// the module's bytes get a maximum (flags 1, `maxBytes` / 64 KiB pages) before it is compiled:
// past it `memory.grow` fails, Rust's allocator aborts, and the query throws a
// WebAssembly.RuntimeError instead of taking the machine's memory. The instance is unusable
// after that; its Worker is replaced (api/services/sparql_worker.ts). Deno-only (reads the npm package's
// file); one instance per Worker.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { initSync, Store } from "oxigraph/web.js";

const PAGE = 65_536;

function leb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let v = 0, shift = 0, i = at;
  for (;;) {
    const b = bytes[i++];
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [v, i];
  }
}

function uleb(v: number): number[] {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
}

/**
 * `wasm` with its one defined memory capped at `maxPages` pages. Throws when the module has no
 * memory section of one memory, or its memory already has a maximum below the initial size.
 */
export function capWasmMemory(wasm: Uint8Array, maxPages: number): Uint8Array {
  let i = 8; // magic + version
  while (i < wasm.length) {
    const id = wasm[i];
    const [size, body] = leb(wasm, i + 1);
    if (id === 5) {
      const [count, p] = leb(wasm, body);
      if (count !== 1) throw new Error(`Cannot cap the memory: ${count} memories declared`);
      const flags = wasm[p];
      const [initial, q] = leb(wasm, p + 1);
      const end = flags & 1 ? leb(wasm, q)[1] : q;
      if (end !== body + size) throw new Error("Cannot cap the memory: unexpected memory section");
      const max = Math.max(initial, maxPages);
      const content = [...uleb(1), 1, ...uleb(initial), ...uleb(max)];
      const section = [5, ...uleb(content.length), ...content];
      const out = new Uint8Array(wasm.length - (body + size - i) + section.length);
      out.set(wasm.subarray(0, i), 0);
      out.set(section, i);
      out.set(wasm.subarray(body + size), i + section.length);
      return out;
    }
    i = body + size;
  }
  throw new Error("Cannot cap the memory: the module defines none");
}

let memory: WebAssembly.Memory | undefined;

/** Bytes of linear memory the instance holds now (0 before it starts). */
export function oxigraphMemoryBytes(): number {
  return memory?.buffer.byteLength ?? 0;
}

/**
 * Instantiates Oxigraph (the `web` build of the pinned npm package) with linear memory of at most
 * `maxBytes`, once per thread, and answers its Store class.
 */
export function boundedOxigraph(maxBytes: number): typeof Store {
  if (!memory) {
    const path = createRequire(import.meta.url).resolve("oxigraph/web_bg.wasm");
    const pages = Math.max(1, Math.floor(maxBytes / PAGE));
    const exports = initSync({ module: capWasmMemory(readFileSync(path), pages) });
    memory = (exports as unknown as { memory: WebAssembly.Memory }).memory;
  }
  return Store;
}
