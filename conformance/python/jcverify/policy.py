"""JouleClaw SPEC §10.1 policy_digest, from the clause's preimage (widths: 8-byte BE for every
length and count, 2-byte BE ports; literal tags unprefixed; agent ids sorted bytewise; rule order
and port ranges kept as written; version excluded)."""

from .blake3 import blake3_hex


def _u64(n):
    return n.to_bytes(8, "big")


def _lp(s):
    b = s.encode("utf-8")
    return _u64(len(b)) + b


def _list(items):
    return _u64(len(items)) + b"".join(_lp(x) for x in items)


def preimage(policy) -> bytes:
    out = [b"jouleclaw.policy/1", _u64(len(policy["rules"]))]
    for r in policy["rules"]:
        out.append(_lp(r["name"]))
        out.append(r["effect"].encode())
        if r["agents"] == "any":
            out.append(b"agents:any")
        else:
            out.append(b"agents:one_of")
            out.append(_list(sorted(r["agents"]["one_of"], key=lambda s: s.encode("utf-8"))))
        a = r["action"]
        if a["kind"] == "filesystem":
            out += [b"action:filesystem", _lp(a["path_glob"]), _list(a["modes"])]
        elif a["kind"] == "network":
            out += [b"action:network", _lp(a["host_glob"]), a["ports"]["from"].to_bytes(2, "big"),
                    a["ports"]["to"].to_bytes(2, "big"), _list(a["methods"])]
        elif a["kind"] == "process":
            out += [b"action:process", _lp(a["binary_glob"])]
        else:
            raise ValueError(f"unknown action kind {a['kind']!r}")
    return b"".join(out)


def digest(policy) -> str:
    return blake3_hex(preimage(policy))
