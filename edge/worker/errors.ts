// The edge build's own configuration error (docs/EDGE.md): a Worker whose secret, bindings or
// vars cannot be used answers every request with problem+json `edge-config` naming what is wrong.

/** A Worker binding (secret, var, Durable Object namespace) that cannot be used. */
export class EdgeConfigError extends Error {
  readonly code = "edge-config";
  constructor(message: string) {
    super(message);
    this.name = "EdgeConfigError";
  }
}
