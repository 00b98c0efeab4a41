// GET /v1/accounts (issue 30; docs/ACCOUNTING.md): a steward's accounts per grant over a window of
// integration time, kept by the store at append (log/accounts/, JCP §8.1's reading rules and
// §8.2's counting). A few index seeks per grant answered (O(log n)); paged by grant id. Accounts
// change as entries arrive, so the answer is never cached as immutable.
import type { AccountQuery } from "../../../log/mod.ts";
import { ApiError } from "../errors.ts";
import { hashParam } from "../params.ts";
import type { RouteGroup } from "../route.ts";
import { limitOf, reads, stewardParam } from "./streams.ts";

/** RFC 3339 date-time (a `Z` or an offset; fractions of a second allowed). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A window bound: milliseconds since the epoch (a decimal integer, at most 2^53 − 1) or an RFC
 * 3339 date-time. Anything else is 400 `bad-window` naming the parameter.
 */
export function timeParam(name: "from" | "to", raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  let t = NaN;
  if (/^(0|[1-9][0-9]{0,15})$/.test(raw)) t = Number(raw);
  else if (RFC3339.test(raw)) t = Date.parse(raw);
  if (!Number.isSafeInteger(t) || t < 0) {
    throw new ApiError(
      "bad-window",
      `Cannot read ${name}: ${JSON.stringify(raw.slice(0, 64))} is neither milliseconds since ` +
        "the epoch nor an RFC 3339 date-time",
      { extra: { parameter: name } },
    );
  }
  return t;
}

/** The accounts route group. */
export const accountRoutes: RouteGroup = {
  name: "accounts",
  routes: [{
    method: "GET",
    path: "/v1/accounts",
    query: ["steward", "grant", "from", "to", "after", "limit"],
    cors: true,
    class: {
      id: "jc:AccountList",
      title: "Accounts",
      description: "A steward's accounts per grant over a window of integration time: what the " +
        "logged receipts debited, held, settled and minted, read by JCP §8.1's rules, and the " +
        "actions allowed and refused (§8.2).",
    },
    operation: {
      title: "List a steward's accounts",
      description: '{steward, from, to, window: "integration", accounts: [{grant, first_index, ' +
        "last_index, receipts, allowed, refused, debited_uj, debited_minor, holds, held_uj, " +
        "holds_settled, released_uj, settles, settled_uj, firings, minted_uj, partial, " +
        "outstanding_holds, outstanding_uj, replay_uj, partial_total, saturated}], " +
        "counted_from, next}. `grant` (64 hex) answers one account; else every grant with a " +
        "receipt in the window, by grant id, after `after`, at most `limit`. `from` and `to` " +
        "(milliseconds since the epoch or RFC 3339) bound the integration time (the first " +
        "signed head covering the receipt): from <= t < to, either open (docs/ACCOUNTING.md).",
      expects: "owl:Nothing",
      returns: "jc:AccountList",
      possibleStatus: [
        { status: 200, description: "The accounts." },
        {
          status: 400,
          description: "A missing or malformed steward, grant, after or limit " +
            "(bad-parameter), an unknown parameter (unknown-query-parameter), a bound that is " +
            "no time or from not before to (bad-window).",
        },
        { status: 404, description: "This log keeps no stream state (streams-unavailable)." },
      ],
      toolId: "jouleclaw:accounts.list",
      mutating: false,
    },
    handler: async (c) => {
      const steward = stewardParam(c.req.query("steward"));
      const g = c.req.query("grant"), after = c.req.query("after");
      const q: AccountQuery = { steward, limit: limitOf(c) };
      if (g !== undefined) q.grant = hashParam("grant", g);
      if (after !== undefined) q.after = hashParam("after", after);
      const from = timeParam("from", c.req.query("from"));
      const to = timeParam("to", c.req.query("to"));
      if (from !== undefined && to !== undefined && from >= to) {
        throw new ApiError(
          "bad-window",
          `Cannot read the window: from ${from} is not before to ${to}`,
          {
            extra: { parameter: "from" },
          },
        );
      }
      if (from !== undefined) q.from = from;
      if (to !== undefined) q.to = to;
      const page = await reads(c).accounts(q);
      c.header("cache-control", "no-cache");
      return c.json({
        steward,
        from: from ?? null,
        to: to ?? null,
        window: "integration",
        ...page,
      });
    },
  }],
};
