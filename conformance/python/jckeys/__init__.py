"""jckeys: builds and resolves JCP §2.1 key-event chains, independently of the TypeScript code.

Written from the specification's text only (JCP §2 did:key actors, §2.1 KeyEvent and pre-committed
rotation, §3 canonical det-CBOR and content ids; RFC 9052 COSE_Sign1; docs/DECISIONS.md "JCP
objects on the wire": kid = the event's `current`): Ed25519 from python3-cryptography, the CBOR and
BLAKE3 of jcstreams (its own encoder, BLAKE3 checked against `b3sum`). `chain.py` seals events and
receipts; `resolve.py` re-derives, from a log's entries in log order, every identity's state and
the verdict the log must give each key event and each receipt under an identity.
tests/e2e/keys_python_test.ts drives it over real HTTP.
"""
