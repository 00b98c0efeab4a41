"""Signed jcp/2 streams covering each case of JCP §8.1's reading (issue 30), per seed.

One steward per stream; its receipts form a hash-chained stream (seq, prev) and are sent in an
order with a settle before its hold (submissions come out of order). Each case, by the text:
- a capped debit: an allow debited less than cost_uj, single grant (debited_uj) and through a
  chain (chain_debited_uj, each link at its own ceiling; debited_uj the leaf's);
- a caveat denial with debited_uj (a denial from the debit point debited work that ran), and
  window-exceeded with debited_uj 0 (the same reason sealed before any work);
- a legacy caveat denial without debited_uj (reads as its cost_uj);
- refusals (budget-exceeded; one stating held_uj, one minted_uj: they hold and fire nothing);
- a hold settled, a hold settled by a settle sent before it, a hold never settled, a second
  settle of a resolved hold;
- a firing of a standing grant (action mint, cost_uj 0, minted_uj);
- a Partial receipt; a priced allow (debited_minor) and a chained one (chain_debited_minor);
- an invalid receipt (a deny without deny_reason): the log refuses it, nothing is counted.
"""
import hashlib
import random

from jcstreams.stream import ZEROS, Steward, content_id, core


def gid(name: str) -> str:
    return hashlib.sha256(f"jcaccounts grant {name}".encode()).hexdigest()


def build(seed: int) -> dict:
    rnd = random.Random(seed)
    s = Steward(hashlib.sha256(f"jcaccounts steward {seed}".encode()).digest())
    root, leaf, single, standing = gid(f"root {seed}"), gid(f"leaf {seed}"), gid(f"g {seed}"), \
        gid(f"standing {seed}")
    chain = {"chain_ids": [root, leaf], "grant_id": leaf}
    n = [0]
    items = []  # (label, core)

    def add(label, **members):
        n[0] += 1
        c = core(s, seed * 1000 + n[0], **{"grant_id": single, **members})
        items.append((label, c))
        return c

    cost = lambda: rnd.randrange(100, 5000)
    for _ in range(rnd.randrange(1, 4)):
        add("allow", cost_uj=cost())
    c = cost()
    add("capped", cost_uj=c, debited_uj=c // 2)
    c = cost()
    add("capped-chain", cost_uj=c, chain_debited_uj=[c - 10, c // 3], debited_uj=c // 3, **chain)
    c = cost()
    add("caveat-debited", verdict="deny", deny_reason="caveat-unsatisfied", cost_uj=c,
        debited_uj=c)
    add("window-nothing", verdict="deny", deny_reason="window-exceeded", cost_uj=cost(),
        debited_uj=0)
    add("caveat-legacy", verdict="deny", deny_reason="caveat-unsatisfied", cost_uj=cost())
    add("refusal", verdict="deny", deny_reason="budget-exceeded", cost_uj=cost())
    add("refusal-held", verdict="deny", deny_reason="budget-exceeded", cost_uj=cost(),
        held_uj=cost())
    add("refusal-minted", verdict="deny", deny_reason="policy-denied", cost_uj=0,
        minted_uj=cost(), grant_id=standing, action="mint")
    add("partial", cost_uj=cost(), energy_coverage="Partial")
    add("priced", cost_uj=cost(), debited_minor=rnd.randrange(1, 900))
    add("priced-chain", cost_uj=cost(), chain_debited_minor=[rnd.randrange(1, 50), 7], **chain)
    add("firing", cost_uj=0, minted_uj=rnd.randrange(1000, 90000), grant_id=standing,
        action="mint")
    # holds: resolved by content id, so each settle is built after its hold is sealed
    holds = [("hold-settled", {}), ("hold-early", {}), ("hold-open", chain),
             ("hold-twice", {})]
    for label, extra in holds:
        add(label, cost_uj=0, held_uj=rnd.randrange(5000, 20000), **extra)
    # seal in stream order (seq, prev), settles naming their holds' envelopes
    envs, labels, prev = [], [], ZEROS
    hold_env = {}

    def seal(label, c):
        nonlocal prev
        c = dict(c, seq=len(envs), prev=prev)
        e = s.seal(c)
        envs.append(e)
        labels.append(label)
        prev = content_id(e)
        return e

    for label, c in items:
        e = seal(label, c)
        if label.startswith("hold-"):
            hold_env[label] = e
    for label in ("hold-settled", "hold-early", "hold-twice", "hold-twice"):
        n[0] += 1
        settle = core(s, seed * 1000 + n[0], grant_id=single, cost_uj=cost(),
                      settles=content_id(hold_env[label]))
        seal("settle-of-" + label, settle)
    # the invalid one: a deny without deny_reason (JCP §8), refused by the log
    n[0] += 1
    bad = s.seal(core(s, seed * 1000 + n[0], grant_id=single, verdict="deny", cost_uj=cost()))
    order = list(range(len(envs)))
    rnd.shuffle(order)
    # the settle of hold-early goes before its hold
    h, st = labels.index("hold-early"), labels.index("settle-of-hold-early")
    order.remove(st)
    order.insert(order.index(h), st)
    return {
        "steward": s.did,
        "grants": {"root": root, "leaf": leaf, "single": single, "standing": standing},
        "send": [envs[i].hex() for i in order],
        "labels": [labels[i] for i in order],
        "invalid": bad.hex(),
    }
