"""Strict ES256: ECDSA P-256 / SHA-256 (COSE alg -7, RFC 9053 §2.1) via Debian python3-cryptography
(OpenSSL), with the project's rule checked explicitly first (docs/DECISIONS.md "ES256"): the
signature is exactly 64 bytes r || s, 0 < r < n and 0 < s < n (high s accepted); the key is a SEC 1
point on P-256 with coordinates below p. Returns a refusal code or None."""

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P = 2**256 - 2**224 + 2**192 + 2**96 - 1


def key_problem(pub: bytes):
    """None for a valid compressed (33) or uncompressed (65) P-256 point, else a refusal code."""
    if not ((len(pub) == 33 and pub[0] in (2, 3)) or (len(pub) == 65 and pub[0] == 4)):
        return "p256-key-encoding"
    if int.from_bytes(pub[1:33], "big") >= P or (len(pub) == 65 and int.from_bytes(pub[33:], "big") >= P):
        return "p256-key-encoding"
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pub)
    except ValueError:
        return "p256-key-not-on-curve"
    return None


def signature_problem(sig: bytes):
    """The range checks of SEC 1 §4.1.4 step 1 on r || s; None when in range."""
    r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
    if not 0 < r < N:
        return "es256-r-range"
    if not 0 < s < N:
        return "es256-s-range"
    return None


def verify(sig: bytes, msg: bytes, pub: bytes) -> bool:
    if len(sig) != 64 or signature_problem(sig) or key_problem(pub):
        return False
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pub)
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        key.verify(der, msg, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False
