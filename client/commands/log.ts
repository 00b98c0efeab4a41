// The log commands of `deno task client` (client/main.ts): append an envelope, prove an entry's
// inclusion, download an entry proven first, check the latest signed head.
import { readEnvelopeFile } from "../envelope_file.ts";
import { submitBulkFiles } from "../bulk_submit.ts";
import { num, type ParsedArgs, str, UsageError } from "../../cli/mod.ts";
import { HttpError, LogClient } from "../client.ts";
import { proveFromTiles } from "../tile_commands.ts";
import { getEntry } from "../get_command.ts";
import { indexOf, newForks, stewardStreams } from "../streams_command.ts";
import { stewardAccounts } from "../accounts_command.ts";
import { allShards, submitFollowing, targetShard } from "../shard_commands.ts";
import {
  type Command,
  EXIT,
  EXITS,
  flagsOf,
  LOG_KEY_OPT,
  netOf,
  OPERATOR_OPT,
  out,
  path,
  POLICY_OPT,
  SHARD_OPT,
  shardCtxOf,
  SOURCE_OPT,
  tileClient,
  URL_OPTS,
  urlOf,
  withPaths,
} from "./common.ts";

/** The target of `prove`: --index N, --leaf HEX, or one bare argument (64 hex: a leaf hash). */
export function proveTarget(p: ParsedArgs): number | string {
  const index = str(p, "index");
  const leaf = str(p, "leaf");
  const bare = p.positional[0];
  const given = [index, leaf, bare].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UsageError("give exactly one of --index N, --leaf HEX, or INDEX|LEAF");
  const asIndex = (s: string) => {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(s) || !Number.isSafeInteger(Number(s))) {
      throw new UsageError(`${JSON.stringify(s)} is not an index (a decimal integer)`);
    }
    return Number(s);
  };
  const asLeaf = (s: string) => {
    if (!/^[0-9a-fA-F]{64}$/.test(s)) {
      throw new UsageError(`${JSON.stringify(s)} is not a leaf hash (64 hex digits)`);
    }
    return s.toLowerCase();
  };
  if (index !== undefined) return asIndex(index);
  if (leaf !== undefined) return asLeaf(leaf);
  // 64 characters are a leaf hash even when all are digits: an index never has 64 digits.
  if (bare.length === 64) return asLeaf(bare);
  if (/^[0-9]+$/.test(bare)) return asIndex(bare);
  throw new UsageError(
    `${JSON.stringify(bare)} is neither an index (digits) nor a leaf hash (64 hex digits)`,
  );
}

/** Rows of the client's command table (client/commands/mod.ts). */
export const LOG_COMMANDS: Record<string, Command> = {
  submit: {
    brief: "append envelopes; prints each index and verdict (proofs and head checked)",
    spec: {
      name: "deno task client submit",
      args: "FILE…",
      summary: 'Appends a COSE_Sign1 envelope (raw bytes, hex, or {"envelope": hex}) to the log; ' +
        "prints its index and its verdict (valid, joule-unverified, or alert with drift_alert: " +
        "all appended, exit 0), after checking the leaf hash, the signed head and the inclusion " +
        "proof. " +
        'Of a sharded service (GET /v1/logs, docs/CLIENTS.md "Shards"): to the active shard; a ' +
        "409 shard-frozen re-reads the directory and retries once on the shard it names. Several " +
        "files (or --batch): bulk appends (application/cbor-seq) of at most --batch envelopes, " +
        "one line per file, a refused one beside the others (exit 1 when any is refused).",
      options: [
        ...URL_OPTS,
        OPERATOR_OPT,
        { name: "batch", value: "N", help: "envelopes per bulk append (default 1000)" },
      ],
      positionals: [1, Infinity],
      footer: EXITS,
    },
    async run(p, e) {
      const files = p.positional.map((f) => path(f, e));
      if (files.length > 1 || str(p, "batch") !== undefined) {
        const envelopes = await Promise.all(
          files.map(async (file, k) => ({
            file: p.positional[k],
            envelope: await readEnvelopeFile(file),
          })),
        );
        const ctx = shardCtxOf(p, e, urlOf(p, e), false);
        const lines = await submitBulkFiles(
          ctx,
          envelopes,
          num(p, "batch", 1000, 1),
          str(p, "signer"),
        );
        for (const l of lines) out(l);
        return lines.some((l) => "refused" in l) ? EXIT.error : EXIT.ok;
      }
      // docs/CLIENTS.md "Shards": to the active shard; a 409 shard-frozen is followed once.
      const envelope = await readEnvelopeFile(files[0]);
      const { append: a, shard } = await submitFollowing(
        shardCtxOf(p, e, urlOf(p, e), false),
        envelope,
        str(p, "signer"),
      );
      out({
        index: a.index,
        leaf_hash: a.leaf_hash,
        // JCR-1 §6, SPEC §6: an appended receipt is valid, joule-unverified or alert (exit 0)
        ...(a.verdict !== undefined ? { verdict: a.verdict } : {}),
        ...(a.drift_alert !== undefined ? { drift_alert: a.drift_alert } : {}),
        created: a.created,
        tree_size: a.tree_head.size,
        ...(shard ? { shard } : {}),
        verified: true,
      });
      return EXIT.ok;
    },
  },
  prove: {
    brief: "check the inclusion proof of one entry (--index N, --leaf HEX)",
    spec: {
      name: "deno task client prove",
      args: "[INDEX | LEAF_HASH]",
      summary: "Fetches the inclusion proof of one entry and checks it against the latest signed " +
        "head. A bare argument of 64 hex digits is a leaf hash, digits otherwise an index. When " +
        "the log publishes tiles (docs/PUBLICATION.md) the entry is proven from them in both " +
        "views, against their signed checkpoints; else through the API.",
      options: [
        { name: "index", value: "N", help: "the entry at index N" },
        { name: "leaf", value: "HEX", help: "the entry whose leaf hash is HEX (64 hex digits)" },
        ...URL_OPTS,
        LOG_KEY_OPT,
        SOURCE_OPT,
        {
          name: "tlog-proof",
          value: "FILE",
          help: "also write a c2sp.org/tlog-proof@v1 of the entry (from tiles)",
        },
        { name: "view", value: "blake3|sha256", help: "the view of --tlog-proof (default blake3)" },
        POLICY_OPT,
        SHARD_OPT,
        OPERATOR_OPT,
      ],
      positionals: [0, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const target = proveTarget(p);
      const file = str(p, "tlog-proof");
      const given = withPaths(
        file ? { ...flagsOf(p), "tlog-proof": path(file, e) } : flagsOf(p),
        e,
      );
      // docs/CLIENTS.md "Shards": an index is within one shard, --shard's or else the active
      // one (as --shard's help says); a leaf is looked for in each, newest first.
      const ctx = shardCtxOf(p, e);
      const shards = typeof target === "number" ? [await targetShard(ctx)] : await allShards(ctx);
      for (const [i, t] of shards.entries()) {
        const flags = t.shard && !str(p, "log-key")
          ? { ...given, "log-key": t.shard.vkeys.blake3 }
          : given;
        try {
          const tc = await tileClient(t.base, flags, e);
          const shard = t.shard ? { shard: t.shard.id } : {};
          if (tc) return await proveFromTiles(tc, target, flags, shard);
          if (file) throw new UsageError("--tlog-proof needs the log's tiles (--source tiles)");
          const signer = str(p, "signer") ?? t.shard?.signer;
          const r = await new LogClient(t.base, signer, fetch, netOf(e)).prove(target);
          out({
            index: r.index,
            size: r.size,
            leaf_hash: r.leaf_hash,
            path: r.path,
            ...shard,
            verified: true,
          });
          return EXIT.ok;
        } catch (err) {
          // Not in this shard: look in the one before it.
          if (i < shards.length - 1 && err instanceof HttpError && err.status === 404) continue;
          throw err;
        }
      }
      return EXIT.error; // unreachable: the last shard's refusal is thrown
    },
  },
  get: {
    brief: "download an entry's envelope, proven in the log first (INDEX|CONTENT_ID --out FILE)",
    spec: {
      name: "deno task client get",
      args: "INDEX|CONTENT_ID",
      summary: "Downloads entry INDEX's (or the entry of a 64-hex content id's, docs/STREAMS.md) " +
        "envelope (its raw COSE_Sign1 bytes) into --out, only once " +
        "it is proven included: from the log's tiles against the signed checkpoint, else through " +
        "the API against the signed head. Past the end of the log: not found (exit 1), nothing " +
        "written.",
      options: [
        { name: "out", value: "FILE", help: "where to write the envelope (required)" },
        ...URL_OPTS,
        LOG_KEY_OPT,
        SOURCE_OPT,
        SHARD_OPT,
        OPERATOR_OPT,
      ],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const raw = p.positional[0];
      const cid = /^[0-9a-f]{64}$/.test(raw);
      if (!cid && !/^(0|[1-9][0-9]{0,15})$/.test(raw)) {
        throw new UsageError(
          `INDEX must be a decimal index or CONTENT_ID 64 lowercase hex, got ${
            JSON.stringify(raw)
          }`,
        );
      }
      const file = str(p, "out");
      if (!file) throw new UsageError("--out FILE is required");
      // docs/CLIENTS.md "Shards": an index is within one shard, --shard's or else the active one
      // (as --shard's help says, and as `prove --index` reads it).
      const t = await targetShard(shardCtxOf(p, e));
      const flags = t.shard && !str(p, "log-key")
        ? { ...flagsOf(p), "log-key": t.shard.vkeys.blake3 }
        : flagsOf(p);
      const tc = await tileClient(t.base, flags, e);
      const signer = str(p, "signer") ?? t.shard?.signer;
      const source = tc ? { tiles: tc } : { api: new LogClient(t.base, signer, fetch, netOf(e)) };
      const api = new LogClient(t.base, signer, fetch, netOf(e));
      const index = cid ? await indexOf(api, raw) : Number(raw);
      const got = await getEntry(source, index, path(file, e));
      out({ ...got, ...(t.shard ? { shard: t.shard.id } : {}) });
      return EXIT.ok;
    },
  },
  streams: {
    brief: "a steward's streams and findings; with --state, alarm (exit 3) on a new fork",
    spec: {
      name: "deno task client streams",
      args: "DID",
      summary: "Prints a steward's hash-chained streams and every finding about them " +
        "(docs/STREAMS.md). With --state FILE, remembers the forks seen there and alarms " +
        "(exit 3) on a stream-fork not seen before.",
      options: [
        { name: "state", value: "FILE", help: "forks seen (read, then rewritten)" },
        ...URL_OPTS,
      ],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const c = new LogClient(urlOf(p, e), str(p, "signer"), fetch, netOf(e));
      const s = await stewardStreams(c, p.positional[0]);
      const state = str(p, "state");
      if (!state) {
        out(s);
        return EXIT.ok;
      }
      const fresh = await newForks(s, path(state, e));
      out({ ...s, new_forks: fresh });
      if (fresh.length === 0) return EXIT.ok;
      console.error(`ALARM: ${s.steward}: ${fresh.length} new stream fork(s)`);
      return EXIT.check;
    },
  },
  accounts: {
    brief: "a steward's accounts per grant (JCP §8.1), over a window of integration time",
    spec: {
      name: "deno task client accounts",
      args: "DID",
      summary: "Prints what a steward's logged receipts debited, held, settled and minted, per " +
        "grant (every page of GET /v1/accounts; docs/ACCOUNTING.md).",
      options: [
        { name: "grant", value: "HEX", help: "one grant's account" },
        { name: "from", value: "T", help: "integration time from (ms or RFC 3339), inclusive" },
        { name: "to", value: "T", help: "integration time to (ms or RFC 3339), exclusive" },
        ...URL_OPTS,
      ],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const c = new LogClient(urlOf(p, e), str(p, "signer"), fetch, netOf(e));
      out(
        await stewardAccounts(c, p.positional[0], {
          grant: str(p, "grant"),
          from: str(p, "from"),
          to: str(p, "to"),
        }),
      );
      return EXIT.ok;
    },
  },
  head: {
    brief: "check and print the latest signed tree head",
    spec: {
      name: "deno task client head",
      summary: "Fetches the latest signed tree head and checks its signature against the log key " +
        "(of a sharded service: the active shard's, or --shard's, key from the signed directory).",
      options: [...URL_OPTS, SHARD_OPT, OPERATOR_OPT],
      footer: EXITS,
    },
    async run(p, e) {
      const t = await targetShard(shardCtxOf(p, e, urlOf(p, e), false));
      const c = new LogClient(t.base, str(p, "signer") ?? t.shard?.signer, fetch, netOf(e));
      out({ ...(await c.head()), ...(t.shard ? { shard: t.shard.id } : {}), verified: true });
      return EXIT.ok;
    },
  },
  "verifier-config": {
    brief: "print the verifier configuration in force, checked against its log entry",
    spec: {
      name: "deno task client verifier-config",
      summary: "Fetches GET /v1/verifier-config and checks it (issue 23): the logged entry's " +
        "BLAKE3 is the digest, its operator signature verifies, and it holds the document answered.",
      options: [...URL_OPTS],
      footer: EXITS,
    },
    async run(p, e) {
      out(await new LogClient(urlOf(p, e), undefined, fetch, netOf(e)).verifierConfig());
      return EXIT.ok;
    },
  },
};
