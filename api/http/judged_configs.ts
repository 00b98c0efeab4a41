// The configuration each entry of a log was judged under (issue 23), resolved once for a whole
// view, export or SPARQL load: the few configuration entries of the log (and the last one of the
// shards before it) as segments sorted by the first index they govern, each with the options its
// reference vectors give (opened once per digest). An entry then finds its segment by binary
// search: O(log c) for c configurations, nothing re-verified (verify/'s loggedVerdict decides the
// class from step 6 alone). Every view of an entry uses it (JSON, JSON-LD, N-Quads, Turtle), the
// export and the SPARQL store, so all of them agree. Platform-neutral.
import type { Log } from "../../log/mod.ts";
import {
  optionsFromVerifierConfig,
  type ProfileOptions,
  type VerifierConfigRules,
} from "../../verify/mod.ts";
import { shardBase } from "../services/shard_logs.ts";
import { publicRoot } from "./public_url.ts";
import type { AppDeps } from "./route.ts";

/** How a view names the configuration: `{digest, index}`, its shard, its entry's URL. */
export interface JudgedRef {
  digest: string;
  index: number;
  shard?: string;
  url: string;
}

/** Entries from `from` on (to the next segment) were judged under `ref` with `options`. */
export interface Judged {
  from: number;
  /** undefined: no configuration is logged before them (the service's own options decide) */
  ref?: JudgedRef;
  options: ProfileOptions;
}

/** Options by configuration digest: the few documents a service ever logs, each opened once. */
const optionsByDigest = new Map<string, ProfileOptions>();

function optionsOf(deps: AppDeps, digest: string, doc: VerifierConfigRules): ProfileOptions {
  let o = optionsByDigest.get(digest);
  if (!o) {
    // JCR-1 §6 step 6: the reference vectors that document published; the rest the service's
    o = { ...deps.verifier, ...optionsFromVerifierConfig(doc) };
    if (optionsByDigest.size >= 64) optionsByDigest.clear();
    optionsByDigest.set(digest, o);
  }
  return o;
}

/** The segments of one log, and the lookup of an entry's. */
export class JudgedTable {
  readonly segments: readonly Judged[];

  constructor(segments: readonly Judged[]) {
    this.segments = segments;
  }

  /** The segment of entry `index`: the last whose `from` is at most `index`. */
  at(index: number): Judged {
    const s = this.segments;
    let lo = 0, hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid].from <= index) lo = mid;
      else hi = mid - 1;
    }
    return s[lo];
  }
}

/**
 * The table of `log` (default: the app's), one read of the service's configuration chains. A
 * deployment that keeps no configuration judges every entry under its own options.
 */
export async function judgedTable(deps: AppDeps, log: Log = deps.log): Promise<JudgedTable> {
  const src = deps.services?.verifierConfig;
  if (!src) return new JudgedTable([{ from: 0, options: deps.verifier }]);
  const root = publicRoot(deps);
  return new JudgedTable((await src.segments(log)).map((g) => {
    if (!g.ref || !g.doc) return { from: g.from, options: deps.verifier };
    const { digest, index, shard, prefix } = g.ref;
    // in another shard than s0: that shard's IRI (docs/SHARDS.md "Entry IRIs")
    const url = `${root}${prefix ? shardBase(prefix) : ""}/v1/log/entries/${index}`;
    return {
      from: g.from,
      ref: { digest, index, ...(shard ? { shard } : {}), url },
      options: optionsOf(deps, digest, g.doc),
    };
  }));
}
