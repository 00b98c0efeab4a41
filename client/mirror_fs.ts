// The mirror's files on disk (`client mirror <url> <dir>`): read a file or nothing, write one
// atomically (temporary name in the same folder, then rename), so an interrupted run never leaves
// half a file for a static server to serve; the temporary files of a killed run are removed when
// the next run starts.
import type { MirrorStore } from "./mirror.ts";

/** A MirrorStore over the folder `dir`. */
export function fsMirrorStore(dir: string): MirrorStore {
  const root = dir.replace(/\/+$/, "");
  let seq = 0;
  return {
    async read(path) {
      try {
        return await Deno.readFile(`${root}/${path}`);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return undefined;
        throw e;
      }
    },
    async cleanup() {
      const walk = async (d: string): Promise<void> => {
        let entries: Deno.DirEntry[];
        try {
          entries = await Array.fromAsync(Deno.readDir(d));
        } catch (e) {
          if (e instanceof Deno.errors.NotFound) return;
          throw e;
        }
        for (const e of entries) {
          if (e.isDirectory) await walk(`${d}/${e.name}`);
          else if (e.name.startsWith(".tmp-")) await Deno.remove(`${d}/${e.name}`);
        }
      };
      await walk(`${root}/log`);
    },
    async write(path, bytes) {
      const full = `${root}/${path}`;
      const folder = full.slice(0, full.lastIndexOf("/"));
      await Deno.mkdir(folder, { recursive: true });
      const tmp = `${folder}/.tmp-${Deno.pid}-${seq++}`;
      await Deno.writeFile(tmp, bytes);
      await Deno.rename(tmp, full);
    },
  };
}
