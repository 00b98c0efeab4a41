// Lookups at scale (issue 24), a section of `deno task bench log`: a fresh SQLite log of
// BENCH_LOG_LOOKUPS entries (default 10^6; 2,000 in short mode) appended through the log
// with stream checks on — JCP §8.1 chains of 1,000 stewards and JCR-1 receipts with ids and input
// hashes (COSE_Sign1-shaped, signatures not made: the log does not verify) — then the median time
// of a content-id lookup, a search page by steward, by steward and receipt id, and by input hash,
// and an entry's findings, each over random known keys.
import { encodeCbor } from "../../verify/mod.ts";
import { blake3, toHex } from "../../verify/mod.ts";
import { openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { SHORT } from "./_short.ts";

const STEWARDS = 1000;
const SIG = new Uint8Array(64);

function envelope(kid: string, core: Record<string, unknown>): Uint8Array {
  const prot = encodeCbor(new Map<number, number | string>([[1, -8], [4, kid]]));
  return encodeCbor([prot, new Map(), encodeCbor(core), SIG]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] * 1000) / 1000;
}

/** The lookups' figures at `n` entries (in `dir`). */
export async function lookups(dir: string): Promise<Record<string, unknown>> {
  // short mode (tests/bench/short_test.ts): 2,000 entries, the code paths only
  const n = SHORT ? 2000 : Number(Deno.env.get("BENCH_LOG_LOOKUPS") ?? 1_000_000);
  const log = await openLog(openSqliteStorage(`${dir}/lookups.sqlite`), {
    secretKey: new Uint8Array(32).fill(6),
  });
  const r = log.streamReads!;
  const prev = new Map<number, { seq: number; prev: string }>();
  const cids: string[] = [];
  const t0 = performance.now();
  const WINDOW = 4096;
  for (let i = 0; i < n; i += WINDOW) {
    const ps = [];
    for (let k = i; k < Math.min(n, i + WINDOW); k++) {
      const s = k % STEWARDS, kid = `did:key:zBench${s}`;
      let e: Uint8Array;
      if (k % 2 === 0) {
        const p = prev.get(s) ?? { seq: 0, prev: "0".repeat(64) };
        e = envelope(kid, { jcp_receipt: "jcp/2", steward: kid, seq: p.seq, prev: p.prev, n: k });
        prev.set(s, { seq: p.seq + 1, prev: toHex(blake3(e)) });
      } else {
        e = envelope(kid, {
          jc_receipt: "1",
          id: `r-${k}`,
          input_hash: toHex(blake3(new TextEncoder().encode(`in ${k % 5000}`))),
          closed_at: "2026-01-01T00:00:00Z",
          steward: kid,
        });
      }
      if (k % 997 === 0) cids.push(toHex(blake3(e)));
      ps.push(log.append(e));
    }
    await Promise.all(ps);
  }
  const fillS = (performance.now() - t0) / 1000;
  const K = SHORT ? 50 : 1000;
  const time = async (f: (j: number) => Promise<unknown>) => {
    const xs: number[] = [];
    for (let j = 0; j < K; j++) {
      const t = performance.now();
      await f(j);
      xs.push(performance.now() - t);
    }
    return median(xs);
  };
  const pick = (j: number) => (j * 2654435761) % 2 ** 32;
  const out = {
    entries: n,
    fill_appends_per_s: Math.round(n / fillS),
    content_lookup_ms_median: await time((j) =>
      r.byContentId(
        Uint8Array.from(cids[pick(j) % cids.length].match(/../g)!, (x) => parseInt(x, 16)),
      )
    ),
    search_steward_page_ms_median: await time((j) =>
      r.search({ steward: `did:key:zBench${pick(j) % STEWARDS}` }, -1, 100)
    ),
    search_steward_receipt_id_ms_median: await time((j) => {
      const k = (pick(j) % (n / 2)) * 2 + 1;
      return r.search({ steward: `did:key:zBench${k % STEWARDS}`, receiptId: `r-${k}` }, -1, 100);
    }),
    search_input_hash_page_ms_median: await time((j) =>
      r.search(
        { inputHash: toHex(blake3(new TextEncoder().encode(`in ${pick(j) % 5000}`))) },
        -1,
        100,
      )
    ),
    streams_of_steward_ms_median: await time((j) =>
      r.streams(`did:key:zBench${pick(j) % STEWARDS}`)
    ),
    entry_findings_ms_median: await time((j) => r.entryFindings(pick(j) % n)),
    integrated_in_ms_median: await time((j) => r.integratedIn(pick(j) % n)),
  };
  await log.close();
  return out;
}
