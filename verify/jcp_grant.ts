// JCP §4 grants and §4.3 revocations as the log checks them (issue 25; docs/GRANTS.md): the field
// types of each (verify/jcp_object.ts checks only that the fields are there), and a delegated
// grant's attenuation against its parent (§4.1 attenuation, §4.4 delegation control, §4.8 money
// ceiling, §4.9 caveats). Pure: the log supplies the parent.
import { bytesEqual, fromHex, HEX64 } from "./bytes.ts";
import { type CborMap, type CborValue, encodeCbor } from "./cbor.ts";
import { publicKeyFromDidKey } from "./did_key.ts";

/** Why a delegated grant cannot be logged under its parent (docs/GRANTS.md lists each). */
export type AttenuationCode =
  | "grant-chain-broken"
  | "grant-delegation-forbidden"
  | "grant-attenuation-violation";

/**
 * A content id as JCP §3 puts it on the wire (lowercase hex of 32 bytes), or as 32 raw bytes:
 * its 32 bytes; undefined for anything else.
 */
export function contentIdBytes(v: unknown): Uint8Array | undefined {
  if (typeof v === "string") return HEX64.test(v) ? fromHex(v) : undefined;
  return v instanceof Uint8Array && v.length === 32 ? v : undefined;
}

const isUint = (v: unknown) =>
  (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) ||
  (typeof v === "bigint" && v >= 0n);

function isEd25519Did(v: unknown): boolean {
  if (typeof v !== "string") return false;
  try {
    return publicKeyFromDidKey(v).length === 32; // JCP §2: every actor is an Ed25519 key
  } catch {
    return false;
  }
}

/** The first field of a grant (JCP §4) whose type is wrong, as a sentence; undefined if none. */
export function grantFieldProblem(g: CborMap): string | undefined {
  for (const f of ["issuer", "subject"]) {
    if (!isEd25519Did(g.get(f))) return `\`${f}\` is not an Ed25519 did:key (JCP §2, §4)`;
  }
  const cap = g.get("capability");
  if (!(cap instanceof Map) || cap.size !== 2) {
    return "`capability` is not a map of `resource` and `actions` (JCP §4)";
  }
  if (!contentIdBytes(cap.get("resource"))) {
    return "`capability.resource` is not a content id (JCP §3, §4)";
  }
  const acts = cap.get("actions");
  if (!Array.isArray(acts) || !acts.every((a) => typeof a === "string")) {
    return "`capability.actions` is not a list of strings (JCP §4)";
  }
  for (const f of ["budget_uj", "expiry"]) {
    if (!isUint(g.get(f))) return `\`${f}\` is not an unsigned integer (JCP §4)`;
  }
  if (g.has("delegate_depth") && !isUint(g.get("delegate_depth"))) {
    return "`delegate_depth` is not an unsigned integer (JCP §4.4)";
  }
  if (g.has("parent") && !contentIdBytes(g.get("parent"))) {
    return "`parent` is not a content id (JCP §3, §4)";
  }
  const n = g.get("nonce");
  if (!(n instanceof Uint8Array) || n.length !== 16) return "`nonce` is not 16 bytes (JCP §4)";
  const funds = g.get("budget_funds");
  if (
    g.has("budget_funds") &&
    !(funds instanceof Map && typeof funds.get("currency") === "string" &&
      isUint(funds.get("minor")))
  ) {
    return "`budget_funds` is not {currency, minor} (JCP §4.8)";
  }
  if (g.has("caveats") && !Array.isArray(g.get("caveats"))) {
    return "`caveats` is not a list (JCP §4.9)";
  }
  return undefined;
}

/** The first field of a revocation (JCP §4.3) whose type is wrong, as a sentence. */
export function revocationFieldProblem(r: CborMap): string | undefined {
  if (!contentIdBytes(r.get("grant_id"))) return "`grant_id` is not a content id (JCP §3, §4.3)";
  if (!isEd25519Did(r.get("revoked_by"))) {
    return "`revoked_by` is not an Ed25519 did:key (JCP §2, §4.3)";
  }
  const n = r.get("nonce");
  if (!(n instanceof Uint8Array) || n.length !== 16) return "`nonce` is not 16 bytes (JCP §4.3)";
  return undefined;
}

const big = (v: CborValue | undefined) => BigInt(v as number | bigint);

/**
 * Whether `child` (a grant naming `parent` by its id) narrows `parent`: a code and a sentence for
 * the first rule it breaks, undefined when it holds. Both grants' fields are well typed
 * (grantFieldProblem).
 */
export function attenuationProblem(
  child: CborMap,
  parent: CborMap,
): { code: AttenuationCode; detail: string } | undefined {
  const chain = (detail: string) => ({ code: "grant-chain-broken" as const, detail });
  const amp = (detail: string) => ({ code: "grant-attenuation-violation" as const, detail });
  // §4.1: "MUST refuse delegation by anyone other than the parent's subject"; §4.2 chain-broken
  if (child.get("issuer") !== parent.get("subject")) {
    return chain("its issuer is not its parent's subject (JCP §4.1, §4.2)");
  }
  // §4.4: 0 = leaf-only; a child carries at most d − 1
  if (parent.has("delegate_depth")) {
    const d = big(parent.get("delegate_depth"));
    if (d === 0n) {
      return {
        code: "grant-delegation-forbidden",
        detail: "its parent is leaf-only (delegate_depth 0, JCP §4.4)",
      };
    }
    if (!child.has("delegate_depth") || big(child.get("delegate_depth")) > d - 1n) {
      return amp(`its delegate_depth must be at most ${d - 1n}, its parent's less one (JCP §4.4)`);
    }
  }
  // §4.1: same resource, actions a subset
  const cc = child.get("capability") as CborMap, pc = parent.get("capability") as CborMap;
  const cr = contentIdBytes(cc.get("resource"))!, pr = contentIdBytes(pc.get("resource"))!;
  if (!bytesEqual(cr, pr)) return amp("its resource is not its parent's (JCP §4.1)");
  const pa = new Set(pc.get("actions") as string[]);
  const extra = (cc.get("actions") as string[]).find((a) => !pa.has(a));
  if (extra !== undefined) return amp(`action "${extra}" is not its parent's (JCP §4.1)`);
  if (big(child.get("budget_uj")) > big(parent.get("budget_uj"))) {
    return amp("its budget_uj exceeds its parent's (JCP §4.1)");
  }
  // §4.1: the expiry MUST NOT outlive the parent's (0 = never expires)
  const pe = big(parent.get("expiry")), ce = big(child.get("expiry"));
  if (pe !== 0n && (ce === 0n || ce > pe)) {
    return amp("its expiry outlives its parent's (JCP §4.1)");
  }
  // §4.8: no wider money ceiling; a bounded parent's ceiling is never dropped
  const pf = parent.get("budget_funds") as CborMap | undefined;
  const cf = child.get("budget_funds") as CborMap | undefined;
  if (pf) {
    if (!cf) return amp("it drops its parent's money ceiling (JCP §4.8)");
    if (cf.get("currency") !== pf.get("currency")) {
      return amp("its money ceiling is in another currency than its parent's (JCP §4.8)");
    }
    if (big(cf.get("minor")) > big(pf.get("minor"))) {
      return amp("its money ceiling exceeds its parent's (JCP §4.8)");
    }
  }
  // §4.2/§4.9: every caveat of the parent is carried (compared by canonical bytes)
  const mine = ((child.get("caveats") ?? []) as CborValue[]).map((c) => encodeCbor(c));
  for (const c of (parent.get("caveats") ?? []) as CborValue[]) {
    const b = encodeCbor(c);
    if (!mine.some((m) => bytesEqual(m, b))) {
      return amp("it drops a caveat of its parent (JCP §4.2, §4.9)");
    }
  }
  return undefined;
}
