// The edge's shard directory state (log/r2/shards.ts, docs/EDGE.md "Shards"), in Deno: every
// state a rotation can write yields a directory the contract's rules accept (log/shards'
// checkDirectory, property test over rotation sequences) and each one succeeds the one before;
// shard keys of the bucket and object names; the prefixed bucket.
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkDirectory, directorySuccession, shardLogName } from "../../log/shards/mod.ts";
import {
  directoryOf,
  type DirectoryState,
  finalOf,
  initialState,
  prefixedBucket,
  rotatedState,
  sequencerName,
  shardKeyPrefix,
  shardNumber,
} from "../../log/r2/shards.ts";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import type { R2BucketLike } from "../../log/r2/r2.ts";

const pubHex = (n: number) => toHex(ed25519PublicKey(new Uint8Array(32).fill(n + 1)));
const head = (size: number, timestamp: number) => ({
  size,
  root: new Uint8Array(32).fill(size % 251),
  sha256Root: new Uint8Array(32).fill((size + 7) % 251),
  timestamp,
  signature: new Uint8Array(64),
});

Deno.test("edge shards: every rotated state is a valid directory and a valid successor", () => {
  fc.assert(
    fc.property(fc.array(fc.nat(5000), { minLength: 0, maxLength: 12 }), (sizes) => {
      let s: DirectoryState = initialState("log.example/jc", pubHex(0));
      let t = Date.parse("2026-01-01T00:00:00Z");
      let prev = directoryOf(s, new Date(t).toISOString(), {
        head: undefined,
        firstTime: undefined,
      });
      checkDirectory(prev);
      const issue = (size: number) => {
        t += 1000;
        const d = directoryOf(s, new Date(t).toISOString(), {
          head: { size, timestamp: t },
          firstTime: size > 0 ? new Date(t - 10).toISOString() : undefined,
        });
        checkDirectory(d);
        assert.deepEqual(directorySuccession(prev, d), []);
        prev = d;
        return d;
      };
      sizes.forEach((size, k) => {
        issue(size); // the active shard grew to its final size, then rotated
        t += 1000;
        const first = size > 0 ? new Date(t - 500).toISOString() : null;
        s = rotatedState(s, finalOf(head(size, t), first), pubHex(k + 1));
        const d = issue(0);
        assert.equal(d.shards[k + 1].log_name, shardLogName("log.example/jc", k + 1));
        assert.equal(d.shards[k].size, size);
        assert.equal(d.shards[k].state, "frozen");
      });
    }),
    { numRuns: 50 },
  );
});

Deno.test("edge shards: names, bucket prefixes, the prefixed bucket", async () => {
  assert.equal(shardKeyPrefix(0), "", "s0 keeps the bucket's root");
  assert.equal(shardKeyPrefix(3), "shards/s3/");
  assert.equal(sequencerName(0), "log", "s0 keeps the object of every deployment before shards");
  assert.equal(sequencerName(2), "shard-s2");
  assert.equal(shardNumber("s12"), 12);
  for (const bad of ["s", "s01", "x1", "s-1", "s1/"]) assert.equal(shardNumber(bad), undefined);
  const seen: string[] = [];
  const b: R2BucketLike = {
    get: (k) => (seen.push(`get ${k}`), Promise.resolve(null)),
    put: (k) => (seen.push(`put ${k}`), Promise.resolve({})),
  };
  await prefixedBucket(b, shardKeyPrefix(1)).put("log/blake3/checkpoint", "x");
  await prefixedBucket(b, shardKeyPrefix(0)).get("heads/latest");
  assert.deepEqual(seen, ["put shards/s1/log/blake3/checkpoint", "get heads/latest"]);
});
