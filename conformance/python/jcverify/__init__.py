"""jcverify: an independent Python verifier of the JouleClaw conformance vectors.

It shares no code with the TypeScript verifier in verify/: CBOR well-formedness and canonical form
are checked by its own scanner (cbor_scan), values are decoded with Debian's python3-cbor2,
Ed25519 is libsodium (python3-nacl) behind explicit strictness pre-checks, BLAKE3 is the b3sum
command (Debian's b3sum), HMAC is Python's hmac. Run: python3 -m jcverify <vectors-dir>...
"""
