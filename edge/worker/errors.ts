// The edge build's own configuration error (docs/EDGE.md): a Worker whose secret, bindings or
// vars cannot be used answers every request with problem+json `edge-config` naming what is wrong.
import { CodedError } from "../../net/mod.ts";
import { errorAnswer, problem } from "../../api/mod.ts";

/** A Worker binding (secret, var, Durable Object namespace) that cannot be used (kind `config`). */
export class EdgeConfigError extends CodedError {
  constructor(message: string) {
    super("edge-config", message, "config");
    this.name = "EdgeConfigError";
  }
}

/**
 * The Worker's answer to an error thrown outside the app (its build, its own front stages): a
 * configuration fault of any kind `config` (the edge settings', the service configuration's) is
 * 500 `edge-config` naming it, as the operator must fix it; anything else the app's one error
 * handler answers (api/http/errors.ts errorAnswer).
 */
export function edgeErrorAnswer(err: unknown, req: Request): Response {
  if (err instanceof CodedError && err.kind === "config") {
    console.error(err.message);
    return problem(500, "edge-config", err.message);
  }
  return errorAnswer(err, req.method, new URL(req.url).pathname);
}
