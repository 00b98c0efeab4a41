// C2SP tlog-policy (../shared/spec/c2sp/tlog-policy.md, copied to conformance/upstream/c2sp/):
// the policy file (logs, witnesses, groups, one quorum) and the quorum rule over the set of
// witnesses whose cosignatures verified. Pure: parsing and evaluation only; which cosignatures
// verify is decided by the caller (log/c2sp/quorum.ts) with the signed-note code.

/** A refused policy file; `line` is 1-based (0: the file as a whole). */
export class PolicyFileError extends Error {
  readonly code = "bad-policy";
  constructor(readonly line: number, message: string) {
    super(
      line > 0 ? `Cannot read policy: line ${line}: ${message}` : `Cannot read policy: ${message}`,
    );
    this.name = "PolicyFileError";
  }
}

/** A log line: `log <vkey> [<url>]`. */
export interface PolicyLog {
  vkey: string;
  url?: string;
}

/** A witness line: `witness <name> <vkey> [<url>]`. */
export interface PolicyWitness {
  name: string;
  vkey: string;
  url?: string;
}

/** A group line: `group <name> all|any|<k> <name>...`, with k resolved. */
export interface PolicyGroup {
  name: string;
  k: number;
  members: string[];
}

/** A parsed tlog-policy. */
export interface TlogPolicy {
  logs: PolicyLog[];
  witnesses: PolicyWitness[];
  groups: PolicyGroup[];
  /** A witness name, a group name, or `none`. */
  quorum: string;
}

/** Implementation limits (tlog-policy "Implementation limits": at least 32 of each). */
export const POLICY_LIMITS = { logs: 256, witnesses: 256, groups: 256, bytes: 1 << 20 };

// tlog-policy "Character set": only tab, newline, 0x20-0x7E and 0x80-0xFF.
function checkCharset(bytes: Uint8Array): void {
  let line = 1;
  for (const b of bytes) {
    if (b === 0x0a) line++;
    else if (b !== 0x09 && (b < 0x20 || b === 0x7f)) {
      throw new PolicyFileError(line, `control character 0x${b.toString(16).padStart(2, "0")}`);
    }
  }
}

// The key material of a vkey (`name+hexid+base64(type||key)`): duplicates are vkeys that wrap
// the same underlying public key (tlog-policy "Public key representation").
function keyMaterial(vkey: string, line: number): string {
  // name + hex8 + base64, and the base64 may itself hold '+'.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey);
  if (!m) {
    throw new PolicyFileError(line, `"${vkey}" is not a vkey (name+hex key id+base64 key)`);
  }
  let raw: string;
  try {
    raw = atob(m[3]);
  } catch {
    throw new PolicyFileError(line, `the key of vkey "${vkey}" is not base64`);
  }
  if (raw.length < 2) throw new PolicyFileError(line, `the key of vkey "${vkey}" is empty`);
  return raw.slice(1);
}

/**
 * Parses a tlog-policy file. Names are compared as opaque octet strings (the file is decoded as
 * latin1, so every byte is one character and nothing is normalised).
 *
 * @example
 * ```ts
 * const p = parsePolicy(new TextEncoder().encode("log example.com/log+...\nquorum none\n"));
 * ```
 */
export function parsePolicy(bytes: Uint8Array): TlogPolicy {
  if (bytes.length > POLICY_LIMITS.bytes) {
    throw new PolicyFileError(0, `the file exceeds ${POLICY_LIMITS.bytes} bytes`);
  }
  checkCharset(bytes);
  const text = new TextDecoder("latin1").decode(bytes);
  const logs: PolicyLog[] = [];
  const witnesses: PolicyWitness[] = [];
  const groups: PolicyGroup[] = [];
  const names = new Set<string>(); // witnesses and groups share one namespace
  const keys = new Map<string, string>(); // key material → what defined it
  let quorum: string | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const trimmed = lines[i].replace(/^[ \t]+|[ \t]+$/g, "");
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const f = trimmed.split(/[ \t]+/);
    const noteKey = (vkey: string, what: string) => {
      const km = keyMaterial(vkey, n);
      const prev = keys.get(km);
      if (prev !== undefined) throw new PolicyFileError(n, `${what} duplicates the key of ${prev}`);
      keys.set(km, what);
    };
    const newName = (name: string) => {
      if (name === "none") throw new PolicyFileError(n, `"none" is predefined`);
      if (names.has(name)) throw new PolicyFileError(n, `name "${name}" is already defined`);
      names.add(name);
    };
    switch (f[0]) {
      case "log": {
        if (f.length < 2 || f.length > 3) {
          throw new PolicyFileError(n, "expected log <vkey> [<url>]");
        }
        noteKey(f[1], `log ${f[1].split("+")[0]}`);
        logs.push(f.length === 3 ? { vkey: f[1], url: f[2] } : { vkey: f[1] });
        if (logs.length > POLICY_LIMITS.logs) throw new PolicyFileError(n, "too many logs");
        break;
      }
      case "witness": {
        if (f.length < 3 || f.length > 4) {
          throw new PolicyFileError(n, "expected witness <name> <vkey> [<url>]");
        }
        newName(f[1]);
        noteKey(f[2], `witness ${f[1]}`);
        witnesses.push(
          f.length === 4 ? { name: f[1], vkey: f[2], url: f[3] } : { name: f[1], vkey: f[2] },
        );
        if (witnesses.length > POLICY_LIMITS.witnesses) {
          throw new PolicyFileError(n, "too many witnesses");
        }
        break;
      }
      case "group": {
        if (f.length < 4) {
          throw new PolicyFileError(n, "expected group <name> all|any|<k> <name>...");
        }
        const members = f.slice(3);
        const seen = new Set<string>();
        for (const m of members) {
          if (m === "none") throw new PolicyFileError(n, `"none" cannot be a group member`);
          if (!names.has(m)) throw new PolicyFileError(n, `member "${m}" is not defined above`);
          if (seen.has(m)) throw new PolicyFileError(n, `member "${m}" is listed twice`);
          seen.add(m);
        }
        let k: number;
        if (f[2] === "all") k = members.length;
        else if (f[2] === "any") k = 1;
        else if (/^[1-9][0-9]*$/.test(f[2]) && Number(f[2]) <= members.length) k = Number(f[2]);
        else {
          throw new PolicyFileError(
            n,
            `threshold "${f[2]}" must be all, any, or a decimal in [1, ${members.length}]`,
          );
        }
        newName(f[1]);
        groups.push({ name: f[1], k, members });
        if (groups.length > POLICY_LIMITS.groups) throw new PolicyFileError(n, "too many groups");
        break;
      }
      case "quorum": {
        if (f.length !== 2) throw new PolicyFileError(n, "expected quorum <name>");
        if (quorum !== undefined) throw new PolicyFileError(n, "a second quorum line");
        if (f[1] !== "none" && !names.has(f[1])) {
          throw new PolicyFileError(n, `quorum "${f[1]}" is not defined above`);
        }
        quorum = f[1];
        break;
      }
      default:
        throw new PolicyFileError(n, `unknown keyword "${f[0]}"`);
    }
  }
  if (quorum === undefined) throw new PolicyFileError(0, "no quorum line");
  return { logs, witnesses, groups, quorum };
}

/**
 * Whether the witnesses named in `cosigned` (those whose cosignatures verified) satisfy the
 * policy's quorum: a witness witnesses when it cosigned; a group when at least k of its members
 * witnessed; `none` always.
 *
 * @example
 * ```ts
 * quorumMet(policy, new Set(["X1", "X2", "Y1"]));
 * ```
 */
export function quorumMet(policy: TlogPolicy, cosigned: ReadonlySet<string>): boolean {
  if (policy.quorum === "none") return true;
  const groups = new Map(policy.groups.map((g) => [g.name, g]));
  const memo = new Map<string, boolean>();
  const witnessed = (name: string): boolean => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const g = groups.get(name);
    // Groups reference only names defined above them, so the recursion ends.
    const v = g ? g.members.filter(witnessed).length >= g.k : cosigned.has(name);
    memo.set(name, v);
    return v;
  };
  return witnessed(policy.quorum);
}
