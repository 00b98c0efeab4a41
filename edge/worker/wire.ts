// The wire between the Worker and the log's Durable Object (docs/EDGE.md). Workers RPC carries
// structured-clone values but not error classes or their fields, so the Durable Object answers
// every call with an `Outcome` and the Worker side rebuilds the log's own error (STYLE "three
// kinds of failure": input errors keep their stable code, pushback keeps retryAfterMs, integrity
// and storage faults stay 5xx), so the app's one error handler answers exactly as it does for the
// embedded default.
import {
  LogInputError,
  LogIntegrityError,
  LogStorageError,
  PushbackError,
  StorageConflictError,
} from "../../log/mod.ts";

/** An error as it crosses the RPC boundary. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  retryAfterMs?: number;
}

/** What every Durable Object method returns. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Serialises a thrown value for the wire. */
export function toWire(err: unknown): WireError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; retryAfterMs?: unknown };
    return {
      name: e.name,
      message: e.message,
      ...(typeof e.code === "string" ? { code: e.code } : {}),
      ...(typeof e.retryAfterMs === "number" ? { retryAfterMs: e.retryAfterMs } : {}),
    };
  }
  return { name: "Error", message: String(err) };
}

/** Rebuilds the log's error class from its wire form (unknown names become a plain Error). */
export function fromWire(w: WireError): Error {
  switch (w.name) {
    case "PushbackError":
      return new PushbackError(w.message, w.retryAfterMs ?? 1000);
    case "LogInputError":
      return new LogInputError(w.code ?? "bad-input", w.message);
    case "LogIntegrityError":
      return new LogIntegrityError(w.message);
    case "LogStorageError":
      return new LogStorageError(w.code ?? "storage-fault", w.message);
    case "StorageConflictError":
      return new StorageConflictError(w.message);
    case "RangeError":
      return new RangeError(w.message);
    default: {
      const e = new Error(w.message);
      if (w.code) (e as Error & { code: string }).code = w.code;
      return e;
    }
  }
}

/** Runs `fn` and captures its result or error as an Outcome (the Durable Object side). */
export async function capture<T>(fn: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: toWire(err) };
  }
}

/** Unwraps an Outcome, throwing the rebuilt error (the Worker side). */
export function unwrap<T>(o: Outcome<T>): T {
  if (o.ok) return o.value;
  throw fromWire(o.error);
}
