"""jcgrants: JCP §4 grants, §4.1-§4.4 chains and §4.3 revocations, independently of the TypeScript.

Written from the specification's text only (JCP §3 content ids, §4 the Grant, §4.1 attenuation,
§4.3 revocation, §4.4 delegation control, §8 the jcp/2 allow naming its grant): canonical
det-CBOR from python3-cbor2 (canonical=True: length-first key order), BLAKE3 from the `b3sum`
command, Ed25519 from python3-nacl (libsodium), its own base58btc did:key and COSE_Sign1.
`python3 -m jcgrants URL` runs every scenario against a running service over HTTP and checks
each answer against what the text says it must be; tests/e2e/grants_python_test.ts drives it.
"""
