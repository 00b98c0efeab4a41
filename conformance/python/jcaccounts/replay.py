"""JCP §8.1's reading of a receipt stream, and §8.2's counting, per (steward, grant) account.

Written from the text of §8.1 "What a receipt debited", "A hold", "A firing" and §8.2:

- "A receipt is therefore read in this order: 1. With chain_debited_uj, link i of chain_ids was
  debited entry i. 2. Otherwise, with debited_uj, every grant the receipt names was debited that
  figure. 3. Otherwise an allow debited cost_uj from every grant it names. A denial debited
  nothing, unless it names caveat-unsatisfied or window-exceeded" - and such a denial without
  debited_uj "reads as having debited its cost_uj from every grant it names".
- "A hold, an allow stating held_uj, debits nothing itself." A settled hold restores nothing; an
  unsettled one reads as debited held_uj on every grant it names. "A refusal ... is never sealed
  as a hold, and held_uj on a refusal holds nothing."
- "A firing, an allow stating minted_uj, debits nothing and accrues nothing" and adds one firing
  and its minted_uj to the mint ledger of the standing grant it names (grant_id). "minted_uj on a
  refusal fires nothing."
- Money: "With chain_debited_minor, link i of chain_ids was debited entry i in money; otherwise,
  with debited_minor, every grant the receipt names was debited that sum", else none.
- §8.2: actions allowed, actions refused; "A firing ... is not an action", "Nor is a hold".
- §5.2: "a total summed from receipts of which any is Partial is Partial".

The log's windows (docs/ACCOUNTING.md): a receipt counts in the window of its integration time
(the first signed head covering it); a hold's release counts where the later of the hold and the
first settle naming it (by the steward's own stream) is integrated.
"""
from .cbor import envelope_core

FIELDS = ["receipts", "allowed", "refused", "debited_uj", "debited_minor", "holds", "held_uj",
          "holds_settled", "released_uj", "settles", "settled_uj", "firings", "minted_uj",
          "partial"]


def named_grants(core):
    """'every grant id the decision debited, root first' (chain_ids), else the one grant."""
    return list(core["chain_ids"]) if core.get("chain_ids") else [core["grant_id"]]


def debits(core):
    """{grant: (uj, minor)} this receipt debited, as §8.1 reads it (holds, firings: nothing)."""
    grants = named_grants(core)
    allow = core["verdict"] == "allow"
    if allow and ("held_uj" in core or "minted_uj" in core):
        return {g: (0, 0) for g in grants}
    if "chain_debited_uj" in core:
        uj = list(core["chain_debited_uj"])
    elif "debited_uj" in core:
        uj = [core["debited_uj"]] * len(grants)
    elif allow or core.get("deny_reason") in ("caveat-unsatisfied", "window-exceeded"):
        uj = [core["cost_uj"]] * len(grants)
    else:
        uj = [0] * len(grants)
    if "chain_debited_minor" in core:
        minor = list(core["chain_debited_minor"])
    elif "debited_minor" in core:
        minor = [core["debited_minor"]] * len(grants)
    else:
        minor = [0] * len(grants)
    out = {}
    for g, u, m in zip(grants, uj, minor):
        a = out.get(g, (0, 0))
        out[g] = (a[0] + u, a[1] + m)
    return out


class Accounts:
    """Events per (steward, grant): (ts, field, amount), summed over any window afterwards."""

    def __init__(self):
        self.events = {}
        self.holds = {}      # (steward, hold cid) -> (grants, held_uj, ts)
        self.resolved = set()
        self.early = {}      # (steward, hold cid) -> ts of the first settle before its hold

    def add(self, steward, grant, ts, field, n=1):
        self.events.setdefault((steward, grant), []).append((ts, field, n))

    def release(self, steward, key, ts):
        grants, held, _ = self.holds[key]
        self.resolved.add(key)
        for g in dict.fromkeys(grants):
            self.add(steward, g, ts, "holds_settled")
            self.add(steward, g, ts, "released_uj", held)

    def read(self, envelope: bytes, cid: str, ts: int):
        steward, core = envelope_core(envelope)
        if not isinstance(core, dict) or core.get("jcp_receipt") not in ("jcp/2", "jcp/1"):
            return
        allow = core["verdict"] == "allow"
        hold = allow and "held_uj" in core
        firing = allow and not hold and "minted_uj" in core
        grants = [core["grant_id"]] if firing else named_grants(core)
        d = debits(core)
        for g in dict.fromkeys(grants):
            self.add(steward, g, ts, "receipts")
            if core.get("energy_coverage") == "Partial":
                self.add(steward, g, ts, "partial")
            if hold:
                self.add(steward, g, ts, "holds")
                self.add(steward, g, ts, "held_uj", core["held_uj"])
            elif firing:
                self.add(steward, g, ts, "firings")
                self.add(steward, g, ts, "minted_uj", core["minted_uj"])
            else:
                self.add(steward, g, ts, "allowed" if allow else "refused")
                self.add(steward, g, ts, "debited_uj", d[g][0])
                self.add(steward, g, ts, "debited_minor", d[g][1])
                if "settles" in core:
                    self.add(steward, g, ts, "settles")
                    self.add(steward, g, ts, "settled_uj", d[g][0])
        if "settles" in core:
            key = (steward, core["settles"])
            if key in self.holds and key not in self.resolved:
                self.release(steward, key, ts)
            elif key not in self.holds:
                self.early.setdefault(key, ts)
        if hold:
            key = (steward, cid)
            if key not in self.holds:
                self.holds[key] = (grants, core["held_uj"], ts)
                if key in self.early:
                    self.release(steward, key, ts)

    def window(self, frm=None, to=None):
        """{(steward, grant): {field: sum}} over from <= ts < to; accounts with a receipt in it."""
        out = {}
        for key, evs in self.events.items():
            sums = {f: 0 for f in FIELDS}
            for ts, field, n in evs:
                if (frm is None or ts >= frm) and (to is None or ts < to):
                    sums[field] += n
            if sums["receipts"] > 0:
                sums["outstanding_uj"] = sums["held_uj"] - sums["released_uj"]
                sums["replay_uj"] = sums["debited_uj"] + sums["outstanding_uj"]
                sums["partial_total"] = sums["partial"] > 0
                out[key] = sums
        return out
