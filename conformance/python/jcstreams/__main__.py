"""`python3 -m jcstreams SCENARIO SEED [N]`: prints one JSON object of hex envelopes.

Scenarios (issue 24): `gap` (a chain of 4, the third withheld, sent last), `fork` (a chain of 3
and a second envelope at seq 1), `wrong-prev` (seq 2 naming a prev other than seq 1's id),
`reused-id` (two JCR-1 receipts, one id, two contents), `long` (N links), `selftest` (BLAKE3
against b3sum).
"""
import json
import subprocess
import sys

from .blake3 import blake3
from .stream import ZEROS, Steward, chain, content_id, core


def receipt(s: Steward, rid: str, n: int) -> bytes:
    """A JCR-1 §2 receipt core (jc_receipt "1") with receipt id `rid`."""
    return s.seal({
        "jc_receipt": "1", "id": rid, "closed_at": "2026-05-31T18:04:22Z",
        "input_hash": blake3(f"py input {n}".encode()).hex(), "tier": "L1",
        "joules_uj": 4200 + n, "energy_provenance": "HwShunt", "steward": s.did,
    })


def main() -> int:
    scenario, seed = sys.argv[1], int(sys.argv[2])
    s = Steward(bytes([seed]) * 32)
    out = {"steward": s.did}
    if scenario == "selftest":
        for data in (b"", b"abc", bytes(range(256)) * 3, b"x" * 1024, b"y" * 65):
            want = subprocess.run(["b3sum", "--no-names"], input=data, capture_output=True,
                                  check=True).stdout.decode().split()[0]
            assert blake3(data).hex() == want, (len(data), blake3(data).hex(), want)
        out["ok"] = True
    elif scenario == "gap":
        out["send"] = [e.hex() for e in chain(s, 4)]
        out["order"] = [0, 1, 3, 2]
    elif scenario == "fork":
        c = chain(s, 3)
        other = s.seal(core(s, 999, seq=1, prev=content_id(c[0])))
        out["send"] = [e.hex() for e in c + [other]]
    elif scenario == "wrong-prev":
        c = chain(s, 2)
        bad = s.seal(core(s, 777, seq=2, prev=ZEROS))
        out["send"] = [e.hex() for e in c + [bad]]
    elif scenario == "reused-id":
        out["send"] = [receipt(s, "py-1", 1).hex(), receipt(s, "py-1", 2).hex()]
    elif scenario == "long":
        out["send"] = [e.hex() for e in chain(s, int(sys.argv[3]))]
    else:
        print(f"unknown scenario {scenario}", file=sys.stderr)
        return 2
    if "send" in out:
        out["content_ids"] = [content_id(bytes.fromhex(e)) for e in out["send"]]
    json.dump(out, sys.stdout)
    return 0


sys.exit(main())
