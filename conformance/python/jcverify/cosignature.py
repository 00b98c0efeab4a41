"""C2SP tlog-cosignature cosignature/v1 (type 0x04) and signed-note Ed25519 (type 0x01) checks,
written from the specs' text alone (c2sp.org/tlog-cosignature "Ed25519 signed message",
c2sp.org/signed-note "Verifier keys", "Signatures"), with libsodium (python3-nacl) via ed25519.py.

    key ID  = SHA-256(name || 0x0A || type || 32-byte public key)[:4]
    line    = "— " name " " base64(key ID || u64 BE timestamp || Ed25519 signature)
    message = "cosignature/v1\\n" "time " decimal(timestamp) "\\n" || checkpoint note text

`python3 -m jcverify.cosignature` reads JSON {"note": str, "vkeys": [str]} on stdin and writes, for
each vkey, whether a signature by it verifies: {"results": [{"vkey", "found", "ok", "time"}]}.
"""

import base64
import hashlib
import json
import sys

from . import ed25519

EM_DASH = "\u2014 "


def parse_vkey(vkey: str):
    name, key_id, material = vkey.split("+", 2)  # the base64 may hold "+"
    raw = base64.b64decode(material, validate=True)
    typ, pub = raw[0], raw[1:]
    want = hashlib.sha256(name.encode() + b"\n" + bytes([typ]) + pub).digest()[:4]
    if bytes.fromhex(key_id) != want:
        raise ValueError("key ID does not match the key")
    return name, want, typ, pub


def split_note(note: str):
    """signed-note: the text ends at the last blank line; signature lines follow."""
    i = note.rindex("\n\n")
    return note[: i + 1], note[i + 2 :].splitlines()


def check(note: str, vkey: str):
    name, key_id, typ, pub = parse_vkey(vkey)
    text, lines = split_note(note)
    found = False
    for line in lines:
        if not line.startswith(EM_DASH):
            raise ValueError("bad signature line")
        sname, b64 = line[len(EM_DASH) :].split(" ")
        raw = base64.b64decode(b64, validate=True)
        if sname != name or raw[:4] != key_id:
            continue  # signed-note: signatures from other keys are ignored
        found = True
        sig = raw[4:]
        if typ == 0x01:
            return {"found": True, "ok": ed25519.verify(sig, text.encode(), pub), "time": None}
        if typ == 0x04:
            if len(sig) != 72:
                return {"found": True, "ok": False, "time": None}
            t = int.from_bytes(sig[:8], "big")
            msg = b"cosignature/v1\n" + b"time " + str(t).encode() + b"\n" + text.encode()
            ok = t < 2**63 and ed25519.verify(sig[8:], msg, pub)
            return {"found": True, "ok": ok, "time": t}
        raise ValueError(f"signature type {typ}")
    return {"found": found, "ok": False, "time": None}


def main() -> int:
    req = json.load(sys.stdin)
    out = [dict(vkey=v, **check(req["note"], v)) for v in req["vkeys"]]
    json.dump({"results": out}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
