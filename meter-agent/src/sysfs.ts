// Reading counters under a sysfs root (`--sysfs DIR`, default `/sys`), behind one small interface
// so tests drive fake trees. Linux powercap (Documentation/power/powercap/powercap.rst) and hwmon
// (Documentation/hwmon/sysfs-interface.rst) files are short text.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A failed read, with the errno name (`ENOENT`, `EACCES`, ...). */
export class SysFsError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "SysFsError";
    this.code = code;
  }
}

/** Read-only view of a sysfs tree; paths are relative to its root, with `/` separators. */
export interface SysFs {
  /** The file's text, trimmed; throws SysFsError. */
  readText(path: string): string;
  /** The entries of a directory, sorted; throws SysFsError. */
  list(path: string): string[];
  /** Where the tree is rooted (for messages). */
  readonly root: string;
}

/** The real filesystem under `root`. */
export function nodeSysFs(root = "/sys"): SysFs {
  const wrap = <T>(path: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      const code = (e as { code?: string }).code ?? "EIO";
      throw new SysFsError(code, `Cannot read ${join(root, path)}: ${code}`);
    }
  };
  return {
    root,
    readText: (p) => wrap(p, () => readFileSync(join(root, p), "utf8").trim()),
    list: (p) => wrap(p, () => readdirSync(join(root, p)).sort()),
  };
}

/** Parses a sysfs unsigned decimal; throws SysFsError("EINVAL") on anything else. */
export function readUint(fs: SysFs, path: string): number {
  const t = fs.readText(path);
  if (!/^\d{1,16}$/.test(t)) {
    throw new SysFsError(
      "EINVAL",
      `Cannot parse ${path}: "${t.slice(0, 40)}" is not an unsigned integer`,
    );
  }
  const n = Number(t);
  if (!Number.isSafeInteger(n)) {
    throw new SysFsError("EINVAL", `Cannot parse ${path}: ${t} is too large`);
  }
  return n;
}
