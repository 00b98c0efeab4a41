// Negative vectors of the envelope and its structure (COSE_Sign1 and strict CBOR codes;
// conformance/gen/negatives.ts).
import {
  type CborValue,
  compareBytes,
  concatBytes,
  coseProtectedHeader,
  encodeCbor,
  toHex,
} from "../../verify/mod.ts";
import {
  coreBytes,
  head,
  pairsOf,
  rawEnvelope,
  rawMap,
  seal,
  sealBytes,
  type Signer,
  signWithHeader,
  withRawValue,
} from "./build.ts";
import { STEWARD } from "./config.ts";
import type { Vector } from "./vector.ts";
import { type Core, neg, text, utf8 } from "./negative.ts";

/** A COSE_Sign1 whose protected header is the given raw bytes, validly signed over them. */
function withHeader(protectedMap: Uint8Array, payload: Uint8Array, signer: Signer): Uint8Array {
  return rawEnvelope({
    protected: concatBytes(head(2, protectedMap.length), protectedMap),
    unprotected: new Uint8Array([0xa0]),
    payload: encodeCbor(payload),
    signature: encodeCbor(signWithHeader(protectedMap, payload, signer)),
  });
}

/** An envelope whose parts are given as CBOR values (protected header canonical for STEWARD). */
function envelopeOf(
  parts: Partial<Record<"protected" | "unprotected" | "payload" | "signature", Uint8Array>>,
  payload: Uint8Array,
): Uint8Array {
  const prot = coseProtectedHeader(STEWARD.kid);
  return rawEnvelope({
    protected: parts.protected ?? encodeCbor(prot),
    unprotected: parts.unprotected ?? new Uint8Array([0xa0]),
    payload: parts.payload ?? encodeCbor(payload),
    signature: parts.signature ?? encodeCbor(signWithHeader(prot, payload, STEWARD)),
  });
}

/** The envelope and structure negatives (COSE_Sign1 and strict CBOR codes). */
export function envelopeNegatives(base: Core): Vector[] {
  const P = coreBytes(base);
  const good = seal(base, STEWARD);
  const k = STEWARD.kid;
  const out: Vector[] = [];
  const add = (
    name: string,
    covers: string,
    d: string,
    env: Uint8Array,
    payload: Uint8Array | undefined = P,
    schema: string | null = "1",
    codes?: string[],
  ) => out.push(neg(name, covers, d, schema, k, env, codes, payload));

  // COSE_Sign1 profile (RFC 9052 §4.2, ARCHITECTURE Decision 2)
  add(
    "cose-wrong-tag",
    "cose-wrong-tag",
    "the envelope is tagged 17 (COSE_Mac0) instead of 18",
    concatBytes(new Uint8Array([0xd1]), good),
    P,
    null,
  );
  add(
    "cose-not-array",
    "cose-not-array",
    "a 3-item array (no signature)",
    encodeCbor([encodeCbor(coseProtectedHeader(k)), new Map(), P]),
    P,
    null,
  );
  add(
    "cose-protected-not-bstr",
    "cose-protected-not-bstr",
    "the protected header is a map, not a bstr wrapping one",
    envelopeOf({ protected: coseProtectedHeader(k) }, P),
    P,
    null,
  );
  const unsorted = rawMap([[encodeCbor(4), encodeCbor(k)], [encodeCbor(1), encodeCbor(-8)]]);
  add(
    "cose-protected-not-canonical",
    "cose-protected-not-canonical",
    "protected header {4: kid, 1: -8} — keys out of order",
    withHeader(unsorted, P, STEWARD),
    P,
    null,
  );
  const extra = encodeCbor(new Map<number, CborValue>([[1, -8], [3, 0], [4, k]]));
  add(
    "cose-protected-keys",
    "cose-protected-keys",
    "protected header carries content type (3) beside alg and kid",
    withHeader(extra, P, STEWARD),
    P,
    null,
  );
  const es256 = encodeCbor(new Map<number, CborValue>([[1, -7], [4, k]]));
  add(
    "kid-alg-mismatch",
    "kid-alg-mismatch",
    "alg ES256 (-7) with an Ed25519 did:key kid (was cose-alg-unsupported before ES256 was verified)",
    withHeader(es256, P, STEWARD),
  );
  const alg19 = encodeCbor(new Map<number, CborValue>([[1, -19], [4, k]]));
  add(
    "cose-bad-alg",
    "cose-bad-alg",
    "alg -19 is not a JCR-1 algorithm",
    withHeader(alg19, P, STEWARD),
    P,
    null,
  );
  const kidBytes = encodeCbor(new Map<number, CborValue>([[1, -8], [4, utf8.encode(k)]]));
  add(
    "cose-kid-not-text",
    "cose-kid-not-text",
    "kid is a bstr, not a text string",
    withHeader(kidBytes, P, STEWARD),
    P,
    null,
  );
  add(
    "cose-unprotected-not-empty",
    "cose-unprotected-not-empty",
    "the unprotected header repeats the kid",
    envelopeOf({ unprotected: encodeCbor(new Map([[4, k]])) }, P),
    P,
    null,
  );
  add(
    "cose-payload-not-bstr",
    "cose-payload-not-bstr",
    "the core is embedded as a map instead of a bstr",
    envelopeOf({ payload: P }, P),
    P,
    null,
  );
  add(
    "cose-bad-signature",
    "cose-bad-signature",
    "a 63-byte signature",
    envelopeOf({
      signature: encodeCbor(signWithHeader(coseProtectedHeader(k), P, STEWARD).subarray(0, 63)),
    }, P),
    P,
    null,
  );

  // Strict CBOR of the envelope itself
  add(
    "truncated",
    "truncated",
    "the envelope's last byte is missing",
    good.subarray(0, good.length - 1),
    P,
    null,
  );
  add(
    "trailing-bytes",
    "trailing-bytes",
    "a 0x00 byte after the envelope",
    concatBytes(good, new Uint8Array([0])),
    P,
    null,
  );

  // Strict CBOR of the payload (signed correctly: only the encoding is wrong)
  const signed = (
    name: string,
    covers: string,
    d: string,
    payload: Uint8Array,
    schema: string | null,
    codes?: string[],
  ) => add(name, covers, d, sealBytes(payload, STEWARD), payload, schema, codes);
  signed(
    "reserved-ai",
    "reserved-ai",
    "joules_uj's head uses reserved additional information 28",
    withRawValue(base, "joules_uj", new Uint8Array([0x1c])),
    null,
  );
  signed(
    "non-shortest-head",
    "non-shortest-head",
    "joules_uj 180 encoded in a 2-byte argument (canonical step)",
    withRawValue(base, "joules_uj", head(0, 180, 2)),
    null,
  );
  signed(
    "indefinite-length",
    "indefinite-length",
    "the core is an indefinite-length map (canonical step)",
    concatBytes(new Uint8Array([0xbf]), ...pairsOf(base).flat(), new Uint8Array([0xff])),
    null,
  );
  signed(
    "unsorted-keys",
    "unsorted-keys",
    "the core's keys in reverse order (canonical step, API.md's example)",
    rawMap(pairsOf(base).reverse()),
    null,
  );
  signed(
    "lone-break",
    "lone-break",
    "a break byte where joules_uj's value belongs",
    withRawValue(base, "joules_uj", new Uint8Array([0xff])),
    null,
  );
  const f64 = new Uint8Array(9);
  f64[0] = 0xfb;
  new DataView(f64.buffer).setFloat64(1, 180);
  signed(
    "float",
    "float",
    "joules_uj as the float 180.0 (JCR-1 §3.2: no floats)",
    withRawValue(base, "joules_uj", f64),
    null,
  );
  signed(
    "simple-value",
    "simple-value",
    "eoc_stage: null, as SPEC §2's example prints it (JCR-1 §3.2: omit, never null)",
    rawMap(
      [
        ...pairsOf(base),
        [encodeCbor("eoc_stage"), new Uint8Array([0xf6])] as [Uint8Array, Uint8Array],
      ].sort((a, b) => compareBytes(a[0], b[0])),
    ),
    null,
  );
  signed(
    "tag",
    "tag",
    "closed_at as a tag-0 date-time string",
    withRawValue(
      base,
      "closed_at",
      concatBytes(new Uint8Array([0xc0]), text("2026-05-31T18:04:22Z")),
    ),
    null,
  );
  signed(
    "invalid-utf8",
    "invalid-utf8",
    "id contains the byte 0xff",
    withRawValue(base, "id", new Uint8Array([0x62, 0x72, 0xff])),
    null,
  );
  const pairs = pairsOf(base);
  const idAt = pairs.findIndex(([kk]) => toHex(kk) === toHex(encodeCbor("id")));
  signed(
    "duplicate-key",
    "duplicate-key",
    "the key id twice",
    rawMap([...pairs.slice(0, idAt + 1), pairs[idAt], ...pairs.slice(idAt + 1)]),
    null,
  );
  signed(
    "unsupported-key",
    "unsupported-key",
    "a byte-string map key",
    rawMap([[encodeCbor(new Uint8Array([0])), encodeCbor(0)], ...pairs]),
    null,
  );
  let deep: unknown = 0;
  for (let i = 0; i < 20; i++) deep = [deep];
  signed(
    "too-deep",
    "too-deep",
    "a field nested 21 levels deep (limit 16)",
    coreBytes({ ...base, x_deep: deep }, { maxDepth: 64 }),
    null,
  );
  signed(
    "too-many-items",
    "too-many-items",
    "a field holding 10,001 integers (limit 10,000 items)",
    coreBytes({ ...base, x_many: new Array(10_001).fill(0) }, { maxItems: 20_000 }),
    null,
  );
  signed(
    "core-not-map",
    "core-not-map",
    "the payload is an array, not a map",
    encodeCbor(["1", "rcpt-000002"]),
    null,
  );
  return out;
}
