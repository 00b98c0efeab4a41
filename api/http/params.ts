// Parsing path and query parameters strictly (API.md: sizes are JSON integers, hashes lowercase
// hex). A malformed or missing parameter is a 400 `bad-parameter` naming it (in `detail` and in
// the problem's `parameter` member); nothing is coerced. Pure.
import { ApiError } from "./errors.ts";

function badParameter(name: string, why: string): ApiError {
  return new ApiError("bad-parameter", `Cannot read ${name}: ${why}`, {
    extra: { parameter: name },
  });
}

function missing(name: string): ApiError {
  // Path parameters are always present (the route matched), so a missing one is a query's.
  return badParameter(name, `missing query parameter "${name}"`);
}

/** A non-negative decimal integer without sign, leading zeros or exponent, at most 2^53 - 1. */
export function intParam(
  name: string,
  raw: string | undefined,
  opts: { min?: number } = {},
): number {
  const min = opts.min ?? 0;
  if (raw === undefined) throw missing(name);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw badParameter(name, `${JSON.stringify(raw)} is not a non-negative decimal integer`);
  }
  const n = Number(raw);
  if (n < min) throw badParameter(name, `it must be at least ${min}`);
  return n;
}

/** An optional integer parameter: undefined when absent. */
export function optIntParam(name: string, raw: string | undefined, opts: { min?: number } = {}) {
  return raw === undefined ? undefined : intParam(name, raw, opts);
}

/** A 32-byte hash as 64 lowercase hex characters. */
export function hashParam(name: string, raw: string | undefined): string {
  if (raw === undefined) throw missing(name);
  if (!/^[0-9a-f]{64}$/.test(raw)) {
    throw badParameter(name, `${JSON.stringify(raw)} is not 64 lowercase hex characters`);
  }
  return raw;
}

/**
 * Refuses a query parameter the route does not take (issue 28: `?steward=x` was silently ignored,
 * so a caller believed it filtered). `known` is the route table's `query` list (RouteDef), the
 * same list the OpenAPI and Hydra documents publish. 400 `unknown-query-parameter` naming it.
 */
export function refuseUnknownQuery(url: string, known: ReadonlySet<string>): void {
  const q = url.indexOf("?");
  if (q < 0) return;
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (known.has(name)) continue;
    const takes = known.size ? `it takes ${[...known].join(", ")}` : "it takes none";
    throw new ApiError(
      "unknown-query-parameter",
      `Cannot read the request: unknown query parameter ${JSON.stringify(name)} (${takes})`,
      { extra: { parameter: name } },
    );
  }
}
