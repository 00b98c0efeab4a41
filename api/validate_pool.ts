// `POST /v1/validate` off the event loop (issue 15): JSON-LD expansion and SHACL of a hostile
// document took seconds of CPU (a 59 KB JSON-LD document of 1,500 nodes: 12 s, /healthz waiting
// behind it). Here each document is validated in a Worker (api/validate_pool_worker.ts) under
// `validate_timeout_ms` (past it: 503 `validate-timeout`, the Worker is terminated and replaced),
// with at most `validate_max_nodes` nodes (413 `validate-too-many-nodes`, vocab/validate.ts), and
// at most `validate_max_queued` documents queued or running per Worker (503 `validate-busy` +
// Retry-After beyond). Deno-only: api/main.ts injects it as AppDeps.validate.
import type { ValidateAnswer } from "../vocab/mod.ts";
import type { ServiceConfig } from "./config.ts";
import { ApiError } from "./errors.ts";
import { JobError, JobQueueFullError, JobTimeoutError, OffLoopWorker } from "./off_loop.ts";

/**
 * A few validation Workers; a document goes to the least loaded one.
 *
 * ```ts
 * const pool = new ValidatePool(config);
 * const answer = await pool.validate(text, "TreeHead");
 * pool.close();
 * ```
 */
export class ValidatePool {
  readonly #workers: OffLoopWorker[];
  readonly #timeoutMs: number;

  constructor(config: ServiceConfig) {
    const size = Math.max(1, config.validateWorkers);
    this.#timeoutMs = config.validateTimeoutMs;
    this.#workers = Array.from({ length: size }, () =>
      new OffLoopWorker({
        url: new URL("./validate_pool_worker.ts", import.meta.url),
        init: { maxNodes: config.validateMaxNodes },
        maxQueued: config.validateMaxQueued,
      }));
  }

  /** Resolves once every Worker has started. */
  ready(): Promise<void> {
    return Promise.all(this.#workers.map((w) => w.ready)).then(() => {});
  }

  /** Workers started so far (restarts included). */
  get starts(): number {
    return this.#workers.reduce((n, w) => n + w.starts, 0);
  }

  /** Validates `text` (vocab/validate.ts) in a Worker; errors are ApiErrors (or VocabError-coded). */
  validate = async (text: string, cls?: string): Promise<ValidateAnswer> => {
    let w = this.#workers[0];
    for (const x of this.#workers) if (x.load < w.load) w = x;
    try {
      return await w.run<ValidateAnswer>({ text, cls }, this.#timeoutMs);
    } catch (e) {
      if (e instanceof JobTimeoutError) {
        throw new ApiError(
          "validate-timeout",
          `Cannot validate the document within ${this.#timeoutMs} ms (validate_timeout_ms): ` +
            "send a smaller document",
          { status: 503, headers: { "retry-after": "1" } },
        );
      }
      if (e instanceof JobQueueFullError) {
        throw new ApiError(
          "validate-busy",
          `Cannot validate now: ${e.queued} documents are being validated; retry shortly`,
          { status: 503, headers: { "retry-after": "1" } },
        );
      }
      if (e instanceof JobError && e.name === "VocabError" && e.code) {
        const status = e.code === "validate-too-many-nodes" ? 413 : 400;
        throw new ApiError(e.code, e.message, { status });
      }
      throw e;
    }
  };

  /** Stops every Worker. */
  close(): void {
    for (const w of this.#workers) w.close();
  }
}
