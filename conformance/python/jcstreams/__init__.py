"""jcstreams: builds JCP §8.1 hash-chained receipt streams, independently of the TypeScript code.

Written from the specification's text only (JCP §3 content ids, §8 the jcp/2 core, §8.1 seq/prev,
RFC 8949 §4.2.1 deterministic CBOR, RFC 9052 COSE_Sign1, the BLAKE3 paper, did:key): its own CBOR
encoder, its own BLAKE3 (inputs up to one chunk, checked against `b3sum`), Ed25519 from
python3-cryptography. tests/e2e/streams_python_test.ts drives it over real HTTP.
"""
