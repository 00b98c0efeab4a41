// JouleClaw SPEC §10.1 — binding a policy receipt to the rules: `policy_digest`.
//
// The digest is BLAKE3 over a hand-written, length-prefixed preimage (never a serializer's output),
// so it names the *policy* rather than one encoding of it:
//
//   "jouleclaw.policy/1" || rule_count(8, BE) || per rule:
//     len(name) || name
//     "allow" | "deny"
//     "agents:any" | "agents:one_of" || count(8, BE) || (len || id)*   [ids SORTED]
//     "action:filesystem" || len(path_glob) || path_glob || count || (len || mode_tag)*
//     | "action:network" || len(host_glob) || host_glob || from(2, BE) || to(2, BE)
//         || count || (len || method_tag)*
//     | "action:process" || len(binary_glob) || binary_glob
//
// Where §10.1 leaves a width unsaid (`len`, the mode/method `count`), it is 8 bytes big-endian,
// the width the clause gives every other count (docs/DECISIONS.md, "policy_digest preimage").
// Literal tags ("allow", "action:network", ...) are written without a prefix, exactly as the
// clause shows them: each set of tags is prefix-free, so the preimage stays unambiguous.
import { CodedError } from "../net/mod.ts";

import { blake3, toHex } from "./bytes.ts";

/** Who a rule applies to: everyone, or the listed agent handles (matched by membership). */
export type PolicyAgents = "any" | { one_of: string[] };

/** What a rule matches (SPEC §9 `Action` predicates). */
export type PolicyAction =
  | { kind: "filesystem"; path_glob: string; modes: string[] }
  | { kind: "network"; host_glob: string; ports: { from: number; to: number }; methods: string[] }
  | { kind: "process"; binary_glob: string };

/** One rule: `(effect, agent_scope, action_predicate, name)` (SPEC §9). */
export interface PolicyRule {
  name: string;
  effect: "allow" | "deny";
  agents: PolicyAgents;
  action: PolicyAction;
}

/** A policy: ordered rules plus the installation counter `version`, which the digest excludes. */
export interface Policy {
  version?: number;
  rules: PolicyRule[];
}

/** Thrown by {@link parsePolicy} for a document that is not a policy; `code` is "bad-policy". */
export class PolicyError extends CodedError {
  constructor(message: string) {
    super("bad-policy", message, "internal");
    this.name = "PolicyError";
  }
}

const DOMAIN = "jouleclaw.policy/1";
const enc = new TextEncoder();

function fail(why: string): never {
  throw new PolicyError(`Cannot read policy: ${why}`);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown, where: string): string {
  if (typeof v !== "string") fail(`${where} must be a string`);
  return v;
}

function strList(v: unknown, where: string): string[] {
  if (!Array.isArray(v)) fail(`${where} must be an array of strings`);
  return v.map((x, i) => str(x, `${where}[${i}]`));
}

function port(v: unknown, where: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 0xffff) {
    fail(`${where} must be an integer 0..65535`);
  }
  return v;
}

function parseAction(v: unknown, where: string): PolicyAction {
  if (!isObj(v)) fail(`${where} must be an object`);
  switch (v.kind) {
    case "filesystem":
      return {
        kind: "filesystem",
        path_glob: str(v.path_glob, `${where}.path_glob`),
        modes: strList(v.modes, `${where}.modes`),
      };
    case "network": {
      if (!isObj(v.ports)) fail(`${where}.ports must be an object {from, to}`);
      return {
        kind: "network",
        host_glob: str(v.host_glob, `${where}.host_glob`),
        // SPEC §10.1: a port range is hashed as written, not normalised (from > to is kept).
        ports: {
          from: port(v.ports.from, `${where}.ports.from`),
          to: port(v.ports.to, `${where}.ports.to`),
        },
        methods: strList(v.methods, `${where}.methods`),
      };
    }
    case "process":
      return { kind: "process", binary_glob: str(v.binary_glob, `${where}.binary_glob`) };
    default:
      fail(`${where}.kind must be "filesystem", "network" or "process"`);
  }
}

/**
 * Validates a JSON policy document (operator input) and returns it typed.
 *
 * @example
 * ```ts
 * const p = parsePolicy({ rules: [{ name: "r", effect: "allow", agents: "any",
 *   action: { kind: "process", binary_glob: "/usr/bin/git" } }] });
 * ```
 * @throws {PolicyError} code "bad-policy" when a field is missing or of the wrong type.
 */
export function parsePolicy(doc: unknown): Policy {
  if (!isObj(doc)) fail("a policy must be a JSON object");
  if (!Array.isArray(doc.rules)) fail("rules must be an array");
  const rules = doc.rules.map((r, i): PolicyRule => {
    const where = `rules[${i}]`;
    if (!isObj(r)) fail(`${where} must be an object`);
    if (r.effect !== "allow" && r.effect !== "deny") {
      fail(`${where}.effect must be "allow" or "deny"`);
    }
    let agents: PolicyAgents;
    if (r.agents === "any") agents = "any";
    else if (isObj(r.agents)) {
      agents = { one_of: strList(r.agents.one_of, `${where}.agents.one_of`) };
    } else fail(`${where}.agents must be "any" or {"one_of": [...]}`);
    return {
      name: str(r.name, `${where}.name`),
      effect: r.effect,
      agents,
      action: parseAction(r.action, `${where}.action`),
    };
  });
  const out: Policy = { rules };
  if (doc.version !== undefined) {
    if (typeof doc.version !== "number" || !Number.isSafeInteger(doc.version) || doc.version < 0) {
      fail("version must be a non-negative integer");
    }
    out.version = doc.version;
  }
  return out;
}

/** Growable byte buffer for the preimage. */
class Preimage {
  private parts: Uint8Array[] = [];
  private size = 0;
  raw(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.length;
  }
  tag(s: string): void {
    this.raw(enc.encode(s));
  }
  u64(n: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n));
    this.raw(b);
  }
  u16(n: number): void {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, n);
    this.raw(b);
  }
  /** `len(s) || s`, len = UTF-8 byte length, 8 bytes BE. */
  lp(s: string): void {
    const b = enc.encode(s);
    this.u64(b.length);
    this.raw(b);
  }
  /** `count(8, BE) || (len || item)*` in the order given. */
  list(items: string[]): void {
    this.u64(items.length);
    for (const s of items) this.lp(s);
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** Bytewise comparison of UTF-8 encodings (the sort order of `agents:one_of`). */
function compareUtf8(a: string, b: string): number {
  const x = enc.encode(a), y = enc.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/**
 * The exact §10.1 preimage of a policy (exported so tests and other implementations can compare
 * bytes, not only digests).
 */
export function policyDigestPreimage(policy: Policy): Uint8Array {
  const p = new Preimage();
  p.tag(DOMAIN);
  p.u64(policy.rules.length);
  // SPEC §10.1: rule order is included — two orderings are two policies.
  for (const rule of policy.rules) {
    p.lp(rule.name);
    p.tag(rule.effect === "allow" ? "allow" : "deny");
    if (rule.agents === "any") {
      p.tag("agents:any");
    } else {
      p.tag("agents:one_of");
      // SPEC §10.1 MUST: the agent list is sorted before hashing (membership, not order).
      p.list([...rule.agents.one_of].sort(compareUtf8));
    }
    const a = rule.action;
    if (a.kind === "filesystem") {
      p.tag("action:filesystem");
      p.lp(a.path_glob);
      p.list(a.modes);
    } else if (a.kind === "network") {
      p.tag("action:network");
      p.lp(a.host_glob);
      // SPEC §10.1: the port range is hashed as written, not normalised.
      p.u16(a.ports.from);
      p.u16(a.ports.to);
      p.list(a.methods);
    } else {
      p.tag("action:process");
      p.lp(a.binary_glob);
    }
  }
  // SPEC §10.1: `version` is excluded from the digest.
  return p.bytes();
}

/**
 * `policy_digest` of SPEC §10.1: lowercase-hex BLAKE3 of {@link policyDigestPreimage}.
 *
 * @example
 * ```ts
 * const d = policyDigest(parsePolicy(json)); // "3f…" (64 hex chars)
 * ```
 */
export function policyDigest(policy: Policy): string {
  return toHex(blake3(policyDigestPreimage(policy)));
}
