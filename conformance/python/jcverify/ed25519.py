"""Strict cofactorless Ed25519 (ARCHITECTURE Decision 3) via libsodium (python3-nacl).

libsodium's crypto_sign_verify_detached already refuses a non-canonical S (S >= L), a small-order
R or A, and a non-canonical A, and checks the cofactorless equation [S]B = R + [k]A by comparing
encodings. We still check S < L, A < p and R < p (y coordinate) here explicitly, so the rule does
not depend on the libsodium build: a difference would be a refusal here that libsodium accepts
(documented in conformance/python/README.md).
"""

import nacl.exceptions
import nacl.signing

L = 2**252 + 27742317777372353535851937790883648493
P = 2**255 - 19


def _y(enc: bytes) -> int:
    return int.from_bytes(enc, "little") & ((1 << 255) - 1)


def verify(sig: bytes, msg: bytes, pub: bytes) -> bool:
    if len(sig) != 64 or len(pub) != 32:
        return False
    if int.from_bytes(sig[32:], "little") >= L:  # RFC 8032 §5.1.7: S in [0, L)
        return False
    if _y(pub) >= P or _y(sig[:32]) >= P:  # canonical encodings of A and R
        return False
    try:
        nacl.signing.VerifyKey(pub).verify(msg, sig)
        return True
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
