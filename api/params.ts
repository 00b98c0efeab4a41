// Parsing path and query parameters strictly (API.md: sizes are JSON integers, hashes lowercase
// hex). A malformed parameter is a 400 `bad-parameter` naming it; nothing is coerced. Pure.
import { ApiError } from "./errors.ts";

/** A non-negative decimal integer without sign, leading zeros or exponent, at most 2^53 - 1. */
export function intParam(
  name: string,
  raw: string | undefined,
  opts: { min?: number } = {},
): number {
  const min = opts.min ?? 0;
  if (
    raw === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(raw) || !Number.isSafeInteger(Number(raw))
  ) {
    throw new ApiError(
      "bad-parameter",
      `Cannot read ${name}: ${JSON.stringify(raw ?? null)} is not a non-negative decimal integer`,
    );
  }
  const n = Number(raw);
  if (n < min) {
    throw new ApiError("bad-parameter", `Cannot read ${name}: it must be at least ${min}`);
  }
  return n;
}

/** An optional integer parameter: undefined when absent. */
export function optIntParam(name: string, raw: string | undefined, opts: { min?: number } = {}) {
  return raw === undefined ? undefined : intParam(name, raw, opts);
}

/** A 32-byte hash as 64 lowercase hex characters. */
export function hashParam(name: string, raw: string | undefined): string {
  if (raw === undefined || !/^[0-9a-f]{64}$/.test(raw)) {
    throw new ApiError(
      "bad-parameter",
      `Cannot read ${name}: ${JSON.stringify(raw ?? null)} is not 64 lowercase hex characters`,
    );
  }
  return raw;
}
