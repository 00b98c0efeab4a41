// Reads a logged receipt's account facts (log/accounts/facts.ts) from its signed core, by JCP
// §8.1's reading rules (issue 30; docs/ACCOUNTING.md). One reader per profile, in READERS by the
// core's tag: a profile that debits a budget is added with one function and one row. Never
// throws: a core a reader cannot read has no facts (the verifier refused it before the log).
import { ACCOUNT_MAX, type AccountFacts, type GrantDebit } from "./facts.ts";
import { fromHex, HEX64 } from "../crypto.ts";

/** A core member by name (a CBOR map's or a JSON projection's). */
export type CoreGet = (name: string) => unknown;

/** A profile's reader: the facts of a core signed by `steward`, or undefined. */
export type AccountReader = (get: CoreGet, steward: string) => AccountFacts | undefined;

/** A uint member (a number, a CBOR bigint, or a JSON projection's decimal string past 2^53 - 1). */
interface Uint {
  v: number;
  saturated: boolean;
}

function uint(v: unknown): Uint | undefined {
  if (typeof v === "number") {
    return Number.isInteger(v) && v >= 0
      ? { v: Math.min(v, ACCOUNT_MAX), saturated: v > ACCOUNT_MAX }
      : undefined;
  }
  if (typeof v === "bigint") return v >= 0n ? { v: ACCOUNT_MAX, saturated: true } : undefined;
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) {
    // the JSON projection writes a u64 past 2^53 - 1 as a decimal string
    const b = BigInt(v);
    return b > BigInt(ACCOUNT_MAX)
      ? { v: ACCOUNT_MAX, saturated: true }
      : { v: Number(b), saturated: false };
  }
  return undefined;
}

function uints(v: unknown): Uint[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: Uint[] = [];
  for (const x of v) {
    const u = uint(x);
    if (!u) return undefined;
    out.push(u);
  }
  return out;
}

/**
 * The `jcp/2` and `jcp/1` decision receipt (JCP §8, §8.1). What it debited from each grant it
 * names, read in §8.1's order:
 * 1. with `chain_debited_uj`, link i of `chain_ids` was debited entry i;
 * 2. otherwise, with `debited_uj`, every grant the receipt names was debited that figure;
 * 3. otherwise an allow debited `cost_uj` from every grant it names; a denial debited nothing,
 *    unless it names `caveat-unsatisfied` or `window-exceeded`, which reads (sealed before
 *    `debited_uj` existed) as having debited its `cost_uj` ("a reader MUST NOT read it as zero").
 * A hold (an allow stating `held_uj`) and a firing (an allow stating `minted_uj`) debit nothing;
 * `held_uj` and `minted_uj` on a refusal hold and fire nothing ("a refusal debits nothing", C3).
 * Money: `chain_debited_minor` per link, else `debited_minor` for every grant, else none.
 */
export const readJcp: AccountReader = (get, steward) => {
  const grant = get("grant_id");
  if (typeof grant !== "string" || !HEX64.test(grant)) return undefined;
  const chain = get("chain_ids");
  // §8.1: `chain_ids` is "every grant id the decision debited, root first"; else the one grant.
  const names: string[] = Array.isArray(chain) && chain.length > 0 &&
      chain.every((g) => typeof g === "string" && HEX64.test(g))
    ? chain as string[]
    : [grant];
  const allow = get("verdict") === "allow";
  const cost = uint(get("cost_uj")) ?? { v: 0, saturated: false };
  let saturated = cost.saturated;
  const held = allow ? uint(get("held_uj")) : undefined;
  const minted = allow ? uint(get("minted_uj")) : undefined;
  const f: AccountFacts = {
    steward,
    grants: [],
    kind: held ? "hold" : minted ? "firing" : "action",
    allow,
    partial: get("energy_coverage") === "Partial",
  };
  if (held) {
    f.heldUj = held.v;
    saturated ||= held.saturated;
  } else if (minted) {
    f.mintedUj = minted.v;
    saturated ||= minted.saturated;
  }
  const settles = get("settles");
  if (typeof settles === "string" && HEX64.test(settles)) f.settles = fromHex(settles);
  // joules: rules 1-3
  let uj: (i: number) => number;
  const chainUj = uints(get("chain_debited_uj")), debited = uint(get("debited_uj"));
  if (f.kind !== "action") uj = () => 0;
  else if (chainUj && chainUj.length === names.length) {
    uj = (i) => chainUj[i].v;
    saturated ||= chainUj.some((u) => u.saturated);
  } else if (debited) {
    uj = () => debited.v;
    saturated ||= debited.saturated;
  } else {
    const reason = get("deny_reason");
    const debitPoint = reason === "caveat-unsatisfied" || reason === "window-exceeded";
    uj = allow || debitPoint ? () => cost.v : () => 0;
  }
  // money: chain_debited_minor, else debited_minor, else none (a hold or firing debits none)
  let minor: (i: number) => number = () => 0;
  const chainMinor = uints(get("chain_debited_minor")), dMinor = uint(get("debited_minor"));
  if (f.kind === "action" && chainMinor && chainMinor.length === names.length) {
    minor = (i) => chainMinor[i].v;
    saturated ||= chainMinor.some((u) => u.saturated);
  } else if (f.kind === "action" && dMinor) {
    minor = () => dMinor.v;
    saturated ||= dMinor.saturated;
  }
  // a firing is on the standing grant it names (`grant_id`), not on a chain
  const named = f.kind === "firing" ? [grant] : names;
  // a grant named twice is one account, debited the sum of its links
  const by = new Map<string, GrantDebit>();
  named.forEach((g, i) => {
    const d = by.get(g);
    if (!d) by.set(g, { grant: g, uj: uj(i), minor: minor(i) });
    else {
      d.uj = Math.min(d.uj + uj(i), ACCOUNT_MAX);
      d.minor = Math.min(d.minor + minor(i), ACCOUNT_MAX);
    }
  });
  f.grants = [...by.values()];
  if (saturated) f.saturated = true;
  return f;
};

/**
 * The readers by the core's tag (`jcp_receipt`, else `jc_receipt`): the profiles whose receipts
 * an account counts. A new profile adds its reader here (issue 30: efficiency/1, intercept/1).
 */
export const READERS: Readonly<Record<string, AccountReader>> = {
  "jcp/2": readJcp,
  "jcp/1": readJcp,
};

/** The account facts of a core signed by `steward`, or undefined (no reader for its profile). */
export function accountFactsOf(get: CoreGet, steward: string): AccountFacts | undefined {
  const tag = get("jcp_receipt") ?? get("jc_receipt");
  if (typeof tag !== "string" || !Object.hasOwn(READERS, tag)) return undefined;
  try {
    return READERS[tag](get, steward);
  } catch {
    return undefined;
  }
}
