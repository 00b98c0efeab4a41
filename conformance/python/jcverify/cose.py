"""COSE_Sign1 in the JCR-1 §4 / ARCHITECTURE Decision 2 profile (RFC 9052 §4.2, §4.4)."""

import cbor2

from .cbor_scan import ScanError, scan


class Refusal(Exception):
    """A verification refusal with the project's reason code."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


def parse(envelope: bytes):
    """Return (protected_bytes, kid, payload, signature, alg) or raise Refusal."""
    body = envelope
    if body[:1] == b"\xd2":  # a single tag 18 is accepted
        body = body[1:]
    elif body[:1] and body[0] >> 5 == 6:
        raise Refusal("cose-wrong-tag", "tag other than 18")
    try:
        scan(body)
    except ScanError as e:
        raise Refusal(e.code, "envelope") from e
    arr = cbor2.loads(body)
    if not isinstance(arr, list) or len(arr) != 4:
        raise Refusal("cose-not-array")
    prot, unprot, payload, sig = arr
    if not isinstance(prot, bytes):
        raise Refusal("cose-protected-not-bstr")
    try:
        scan(prot)
    except ScanError as e:
        raise Refusal("cose-protected-not-canonical", e.code) from e
    hdr = cbor2.loads(prot)
    if not isinstance(hdr, dict) or set(hdr.keys()) != {1, 4}:
        raise Refusal("cose-protected-keys")
    if hdr[1] not in (-8, -7):  # JCR-1 §4: EdDSA or ES256
        raise Refusal("cose-bad-alg")
    if not isinstance(hdr[4], str):
        raise Refusal("cose-kid-not-text")
    if unprot != {}:
        raise Refusal("cose-unprotected-not-empty")
    if not isinstance(payload, bytes):
        raise Refusal("cose-payload-not-bstr")
    if not isinstance(sig, bytes) or len(sig) != 64:
        raise Refusal("cose-bad-signature")
    return prot, hdr[4], payload, sig, hdr[1]


def sig_structure(protected: bytes, payload: bytes) -> bytes:
    """RFC 9052 §4.4: ["Signature1", protected, h'', payload]."""
    return cbor2.dumps(["Signature1", protected, b"", payload], canonical=True)
