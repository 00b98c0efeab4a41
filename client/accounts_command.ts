// `client accounts DID` (issue 30; docs/ACCOUNTING.md): a steward's accounts per grant over a
// window of integration time, every page of GET /v1/accounts as one JSON object.
import type { LogClient } from "./client.ts";

/** What `accounts` prints (the service's page, every page's accounts together). */
export interface StewardAccounts {
  steward: string;
  from: number | null;
  to: number | null;
  window: string;
  accounts: Record<string, unknown>[];
  counted_from: number | "all";
}

/** Every page of a steward's accounts (one grant's with `grant`), over [from, to). */
export async function stewardAccounts(
  c: LogClient,
  steward: string,
  o: { grant?: string; from?: string; to?: string } = {},
): Promise<StewardAccounts> {
  const q = new URLSearchParams({ steward });
  if (o.grant !== undefined) q.set("grant", o.grant);
  if (o.from !== undefined) q.set("from", o.from);
  if (o.to !== undefined) q.set("to", o.to);
  let all: StewardAccounts | undefined;
  let after: string | null = null;
  do {
    const page = new URLSearchParams(q);
    if (after !== null) page.set("after", after);
    const p = await c.getJson(`/v1/accounts?${page}`) as unknown as StewardAccounts & {
      next: string | null;
    };
    if (!all) all = { ...p, accounts: [...p.accounts] };
    else all.accounts.push(...p.accounts);
    after = p.next ?? null;
  } while (after !== null);
  delete (all as { next?: unknown }).next;
  return all!;
}
