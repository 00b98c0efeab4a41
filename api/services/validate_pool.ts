// `POST /v1/validate` off the event loop (issue 15): JSON-LD expansion and SHACL of a hostile
// document took seconds of CPU (a 59 KB JSON-LD document of 1,500 nodes: 12 s, /healthz waiting
// behind it). Here each document is validated in a Worker (api/services/validate_pool_worker.ts) under
// `validate_timeout_ms` (past it: 503 `validate-timeout`, the Worker is terminated and replaced),
// with at most `validate_max_nodes` nodes (413 `validate-too-many-nodes`, vocab/validate.ts), and
// at most `validate_max_queued` documents queued or running per Worker (503 `validate-busy` +
// Retry-After beyond). Deno-only: api/deno/main.ts injects it as AppDeps.validate.
import type { ValidateAnswer } from "../../vocab/mod.ts";
import type { ServiceConfig } from "./config.ts";
import { ApiError } from "../http/errors.ts";
import {
  JobError,
  JobQueueFullError,
  jobsProtocol,
  JobTimeoutError,
  WorkerPool,
} from "./pool/mod.ts";

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
  readonly #pool: WorkerPool<{ text: string; cls?: string }, ValidateAnswer>;
  readonly #timeoutMs: number;

  constructor(config: ServiceConfig) {
    this.#timeoutMs = config.validateTimeoutMs;
    this.#pool = new WorkerPool(
      jobsProtocol(new URL("./validate_pool_worker.ts", import.meta.url), {
        maxNodes: config.validateMaxNodes,
      }),
      { size: Math.max(1, config.validateWorkers), maxQueued: config.validateMaxQueued },
    );
  }

  /** Resolves once every Worker has started. */
  ready(): Promise<void> {
    return this.#pool.ready();
  }

  /** Workers started so far (restarts included). */
  get starts(): number {
    return this.#pool.starts;
  }

  /** Validates `text` (vocab/validate.ts) in a Worker; errors are ApiErrors (or VocabError-coded). */
  validate = async (text: string, cls?: string): Promise<ValidateAnswer> => {
    try {
      return await this.#pool.run({ text, cls }, { timeoutMs: this.#timeoutMs });
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
    this.#pool.close();
  }
}
