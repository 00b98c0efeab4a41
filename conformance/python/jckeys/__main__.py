"""`python3 -m jckeys SCENARIO SEED [N]`: prints one JSON object of hex envelopes and what the log
must answer each, as this package's own resolver (resolve.py) derives it.

Scenarios (issue 25): `lifecycle` (receipts before and after an inception and two rotations,
every refusal: a seq gap, a wrong parent, a thief holding the current key, a wrong signer, a
flipped signature; a fork by the pre-committed key, then the frozen identity), `shards` (the
same across a rotation of the log: the test rotates it after `rotation-1`), `many` (N
identities, inception and one rotation each), `load` (an inception, a rotation, N receipts by the
old key and N by the new, to send concurrently). `replay` reads {"entries": [hex...]} (a log's
entries in log order) on stdin and prints every identity's state and any entry the log should not
have admitted.
"""
import json
import sys

from jcstreams.blake3 import blake3
from .chain import Identity, Key
from .resolve import Log, open_envelope


def lifecycle(seed: int) -> list[dict]:
    idn = Identity(seed)
    k = idn.keys
    thief = Key(bytes([seed, 99]) + bytes(30))
    steps: list[tuple[str, bytes, str | None]] = []
    steps.append(("receipt-before-inception", idn.receipt(0, k[0]), None))
    steps.append(("inception", idn.next_event(), None))
    r1 = idn.receipt(1, k[0])
    steps.append(("receipt-by-current", r1, None))
    steps.append(("receipt-by-next-key-too-early", idn.receipt(2, k[1]), None))
    steps.append(("seq-gap", idn.event(2, parent=blake3(b"none"))[1], None))
    steps.append(("wrong-signer", idn.event(1, signer=k[0])[1], None))
    flipped = bytearray(idn.event(1)[1])
    flipped[-1] ^= 1
    steps.append(("flipped-signature", bytes(flipped), None))
    steps.append(("wrong-parent", idn.event(1, parent=blake3(b"not the parent"))[1], None))
    # JCP §2.1: a thief who stole the current key k0 cannot rotate: the key it signs with is not
    # the one event 0 pre-committed (k1), whether it names k0 or its own key as current
    steps.append(("thief-current-key", idn.event(1, current=k[0], nxt=thief)[1], None))
    steps.append(("thief-own-key", idn.event(1, current=thief, nxt=thief)[1], None))
    steps.append(("rotation-1", idn.next_event(), None))
    steps.append(("receipt-by-rotated-out-key", idn.receipt(3, k[0]), None))
    steps.append(("receipt-sealed-before-rotation", r1, "200"))  # already logged: same entry
    steps.append(("receipt-by-new-current", idn.receipt(4, k[1]), None))
    steps.append(("rotation-1-again", idn.cores and k[1].seal(idn.cores[1]), "200"))
    steps.append(("rotation-2", idn.next_event(), None))
    steps.append(("fork-at-2", idn.event(2, salt=1)[1], None))
    _c, r3 = idn.event(3)
    steps.append(("rotation-3-after-fork", r3, None))
    steps.append(("receipt-under-forked-identity", idn.receipt(5, k[2]), None))
    log, out = Log(), []
    for name, env, fixed in steps:
        code = log.offer(env) if fixed is None else fixed
        out.append({"name": name, "hex": env.hex(), "expect": code})
    return out, log.state(idn.did), idn


def shards(seed: int) -> list[dict]:
    """An identity incepted and rotated once, then (the log rotates to a new shard between
    `rotation-1` and `receipt-by-rotated-out-key`) receipts by the retired and current keys, the
    next rotation, a fork at seq 1 (whose first event lies in the older shard), and a rotation
    of the frozen identity: what JCP §2.1 asks whatever shard of the log holds the events."""
    idn = Identity(seed)
    k = idn.keys
    steps: list[tuple[str, bytes]] = [
        ("inception", idn.next_event()),
        ("rotation-1", idn.next_event()),
        ("receipt-by-rotated-out-key", idn.receipt(1, k[0])),
        ("receipt-by-current", idn.receipt(2, k[1])),
        ("seq-gap", idn.event(3, parent=blake3(b"none"))[1]),
        ("thief-current-key", idn.event(2, current=k[1], nxt=k[1])[1]),
        ("rotation-2", idn.next_event()),
        ("receipt-by-retired-1", idn.receipt(3, k[1])),
        ("receipt-by-current-2", idn.receipt(4, k[2])),
        ("receipt-by-retired-0", idn.receipt(5, k[0])),
        ("fork-at-1", idn.event(1, salt=1)[1]),
        ("rotation-3-after-fork", idn.event(3)[1]),
    ]
    log = Log()
    out = [{"name": n, "hex": env.hex(), "expect": log.offer(env)} for n, env in steps]
    return out, log.state(idn.did), idn


def main() -> int:
    scenario = sys.argv[1]
    if scenario == "replay":
        doc = json.load(sys.stdin)
        log, wrong = Log(), []
        for i, h in enumerate(doc["entries"]):
            env = bytes.fromhex(h)
            try:
                kid, core, _ = open_envelope(env)
            except Exception:  # not a COSE_Sign1 of this shape: not a key entry
                continue
            if not isinstance(core, dict):
                continue
            is_event = "next_hash" in core and "jc_receipt" not in core
            steward = core.get("steward")
            if not is_event and (steward not in log.chains):
                continue  # a receipt of a steward without a chain: not judged by keys
            log.index = i
            code = log.offer(env)
            if code not in ("logged", "fork"):
                wrong.append({"index": i, "code": code})
        states = {d: log.state(d) for d in log.chains}
        json.dump({"states": states, "forked": log.forked, "wrong": wrong}, sys.stdout)
        return 0
    seed = int(sys.argv[2])
    if scenario in ("lifecycle", "shards"):
        steps, state, idn = (lifecycle if scenario == "lifecycle" else shards)(seed)
        json.dump({"identity": idn.did, "keys": [k.did for k in idn.keys], "steps": steps,
                   "state": state}, sys.stdout)
    elif scenario == "many":
        n = int(sys.argv[3])
        out = []
        for j in range(n):
            idn = Identity(seed * 10_000 + j)
            out.append({"identity": idn.did, "send": [idn.next_event().hex(),
                                                      idn.next_event().hex()],
                        "current": idn.keys[1].did})
        json.dump({"identities": out}, sys.stdout)
    elif scenario == "load":
        n = int(sys.argv[3])
        idn = Identity(seed)
        inception = idn.next_event()
        rotation = idn.next_event()
        json.dump({"identity": idn.did, "keys": [k.did for k in idn.keys],
                   "inception": inception.hex(), "rotation": rotation.hex(),
                   "old": [idn.receipt(10 + j, idn.keys[0]).hex() for j in range(n)],
                   "new": [idn.receipt(10 + n + j, idn.keys[1]).hex() for j in range(n)]},
                  sys.stdout)
    else:
        print(f"unknown scenario {scenario}", file=sys.stderr)
        return 2
    return 0


sys.exit(main())
