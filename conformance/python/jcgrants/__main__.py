"""`python3 -m jcgrants URL`: every grant and revocation scenario against a running service.

Each step sends one envelope this package built and checks the service's answer against what
JCP §4, §4.1-§4.4 and §8 say it must be, with the codes docs/GRANTS.md names: grants logged and
delegated, every refusal, a revocation and its marker, the allows after it `grant-revoked` (on
the grant and on every chain containing it), and an allow no revocation is checkable for
`revocation-unverifiable`; each allow's revocation status (JCP §4.3: revoked at the marker,
unverifiable) in its answer and its entry. Prints one JSON summary; exit 0 when every check held, 1 otherwise.
"""
import json
import sys
import urllib.error
import urllib.request

from .jcp import Actor, allow, canonical, content_id, grant, narrows, revocation

URL = ""
CHECKS = []


def call(method: str, path: str, body: bytes | None = None):
    req = urllib.request.Request(URL + path, data=body, method=method)
    if body is not None:
        req.add_header("content-type", "application/cose")
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def check(what: str, ok: bool, got=None):
    CHECKS.append({"check": what, "ok": bool(ok), **({} if ok else {"got": got})})


def expect(what: str, answer, status: int, code: str | None = None):
    st, body = answer
    ok = st == status and (code is None or (body or {}).get("code") == code)
    check(what, ok, {"status": st, "body": body})
    return body or {}


def post_grant(g: dict, signer: Actor):
    return call("POST", "/v1/grants", signer.seal(g))


def codes(body) -> list:
    return [f["code"] for f in (body or {}).get("findings", [])]


def main() -> int:
    global URL
    URL = sys.argv[1].rstrip("/")
    root, alice, bob, mallory, gw = Actor(31), Actor(32), Actor(33), Actor(34), Actor(35)
    res = content_id("py grants resource")
    n = 0

    # §4: a root grant; its id is the content id of its canonical bytes (§3)
    g = grant(root, alice, res, delegate_depth=2, expiry=2_000_000_000)
    gid = content_id(g)
    b = expect("root grant logged", post_grant(g, root), 201)
    check("grant_id is blake3(canonical_cbor(grant))", b.get("grant_id") == gid, b)
    g_index = b.get("index")
    expect("root grant again: already logged", post_grant(g, root), 200)

    # §4.1: a child that narrows, issued by the parent's subject
    c = grant(alice, bob, res, parent=gid, delegate_depth=1, expiry=1_900_000_000,
              budget_uj=50_000)
    c["capability"]["actions"] = ["read"]
    check("the child narrows (this package's own §4.1 check)", narrows(c, g) is None)
    cid = content_id(c)
    c_index = expect("child logged under its parent", post_grant(c, alice), 201).get("index")
    st, got = call("GET", f"/v1/grants/{cid}")
    check("GET the child: its chain, root first",
          st == 200 and got.get("chain") == [{"grant_id": gid, "index": g_index}]
          and got.get("index") == c_index and got.get("parent") == gid, got)

    # every refusal of a grant
    def child(**more):
        x = grant(alice, bob, res, parent=gid, delegate_depth=1, **more)
        return x
    cases = [
        ("a parent not logged", grant(alice, bob, res, parent=content_id("nobody")), alice,
         "grant-parent-unknown"),
        ("issued by another than the parent's subject",
         grant(mallory, bob, res, parent=gid, delegate_depth=1), mallory, "grant-chain-broken"),
        ("a wider budget", child(budget_uj=100_001, expiry=1), alice,
         "grant-attenuation-violation"),
        ("an action the parent lacks",
         {**child(expiry=1), "capability": {"resource": res, "actions": ["delete"]}}, alice,
         "grant-attenuation-violation"),
        ("another resource",
         {**child(expiry=1), "capability": {"resource": content_id("other"), "actions": ["read"]}},
         alice, "grant-attenuation-violation"),
        ("outliving the parent (expiry 0 under a dated parent)", child(expiry=0), alice,
         "grant-attenuation-violation"),
        ("a depth not below the parent's", grant(alice, bob, res, parent=gid, delegate_depth=2,
                                                  expiry=1), alice,
         "grant-attenuation-violation"),
        ("no depth under a depth-bounded parent", grant(alice, bob, res, parent=gid, expiry=1),
         alice, "grant-attenuation-violation"),
    ]
    for what, x, signer, code in cases:
        if code != "grant-parent-unknown":
            want = {"grant-chain-broken": "chain-broken"}.get(code, "attenuation")
            check(f"this package's own check refuses: {what}", narrows(x, g) == want, narrows(x, g))
        expect(f"refused: {what}", post_grant(x, signer), 422, code)
    # a leaf-only parent (§4.4): no hop under it
    leaf = grant(bob, alice, res, parent=cid, delegate_depth=0, expiry=1, budget_uj=10)
    leaf["capability"]["actions"] = ["read"]
    leaf_id = content_id(leaf)
    expect("a leaf-only grant logged", post_grant(leaf, bob), 201)
    under = grant(alice, bob, res, parent=leaf_id, delegate_depth=0, expiry=1, budget_uj=1)
    under["capability"]["actions"] = ["read"]
    check("this package refuses a hop under leaf-only", narrows(under, leaf) == "delegation-forbidden")
    expect("refused: a hop under a leaf-only parent", post_grant(under, alice), 422,
           "grant-delegation-forbidden")
    # the envelope itself
    expect("refused: signed by a key that is not the issuer's", post_grant(grant(root, alice, res),
                                                                           mallory), 422,
           "jcp-object-signer")
    env = bytearray(root.seal(grant(root, alice, res)))
    env[-1] ^= 1
    expect("refused: a bad signature", call("POST", "/v1/grants", bytes(env)), 422,
           "jcp-object-bad-signature")
    expect("refused: a 15-byte nonce", post_grant({**grant(root, alice, res), "nonce": b"x" * 15},
                                                  root), 422, "jcp-object-fields")
    expect("refused: a revocation at /v1/grants",
           call("POST", "/v1/grants", root.seal(revocation(gid, root))), 422, "not-a-grant")
    b = expect("refused: a grant at /v1/log/entries",
               call("POST", "/v1/log/entries", root.seal(g)), 422, "grants-route-only")
    check("the refusal names the grants route", b.get("route") == "/v1/grants", b)
    expect("GET a grant id that is not 64 hex", call("GET", "/v1/grants/abc"), 400)
    expect("GET an unknown grant", call("GET", f"/v1/grants/{content_id('none')}"), 404)

    # an allow before any revocation: nothing found
    n += 1
    b = expect("an allow on the child", call("POST", "/v1/log/entries",
                                             allow(gw, cid, n, alice.did)), 201)
    check("no finding before a revocation", codes(b) == [], b)

    # §4.3: revocation refusals
    expect("refused: revoking a grant not logged",
           call("POST", "/v1/revocations", root.seal(revocation(content_id("x"), root))), 422,
           "revocation-unknown-grant")
    expect("refused: revoked_by is not the grant's issuer",
           call("POST", "/v1/revocations", alice.seal(revocation(gid, alice))), 422,
           "revocation-not-issuer")
    expect("refused: a grant at /v1/revocations",
           call("POST", "/v1/revocations", root.seal(g)), 422, "not-a-revocation")
    expect("refused: a revocation at /v1/log/entries",
           call("POST", "/v1/log/entries", root.seal(revocation(gid, root))), 422,
           "revocations-route-only")
    env = bytearray(root.seal(revocation(gid, root)))
    env[-1] ^= 1
    expect("refused: a revocation with a bad signature",
           call("POST", "/v1/revocations", bytes(env)), 422, "jcp-object-bad-signature")

    # the root is revoked: its index is the marker M
    rv = root.seal(revocation(gid, root))
    b = expect("the root revoked by its issuer", call("POST", "/v1/revocations", rv), 201)
    m = b.get("index")
    check("the answer names the revoked grant", b.get("grant_id") == gid
          and b.get("revoked_grant_index") == g_index, b)
    b = expect("the same revocation again", call("POST", "/v1/revocations", rv), 200)
    check("... answers its entry", b.get("index") == m, b)
    b = expect("a second revocation of the grant", call("POST", "/v1/revocations",
                                                        root.seal(revocation(gid, root))), 200)
    check("... answers the first, logs nothing", b.get("index") == m
          and b.get("already_revoked") is True, b)
    st, got = call("GET", f"/v1/grants/{gid}")
    check("GET the root: its revocation", got.get("revocation") == m, got)
    st, got = call("GET", f"/v1/grants/{cid}")
    check("GET the child: not itself revoked, its root is",
          "revocation" not in got and (got.get("chain") or [{}])[0].get("revocation") == m, got)

    # "deny any decision against the revoked grant or any chain containing it"
    for what, target, more in [("the revoked grant", gid, {}), ("its child", cid, {}),
                               ("the leaf under the child", leaf_id, {}),
                               ("the child, with chain_ids", cid, {"chain_ids": [gid, cid]})]:
        n += 1
        b = expect(f"an allow on {what} after the revocation",
                   call("POST", "/v1/log/entries", allow(gw, target, n, alice.did, **more)), 201)
        f = (b.get("findings") or [{}])[0]
        check(f"... is grant-revoked, naming the revocation ({what})",
              codes(b) == ["grant-revoked"] and f.get("other") == m, b)
        # every allow states its revocation status: here the revocation's index (docs/GRANTS.md)
        check(f"... its revocation status names the marker ({what})",
              b.get("revocation") == {"status": "revoked", "index": m}, b)
        st, got = call("GET", f"/v1/log/entries/{b.get('index')}")
        check(f"... and its entry says the same ({what})",
              got.get("revocation") == {"status": "revoked", "index": m}, got)
    # a child minted under the revoked root is logged (evidence), and dead
    late = grant(alice, bob, res, parent=gid, delegate_depth=0, expiry=1, budget_uj=1)
    late_id = content_id(late)
    expect("a child under a revoked grant is logged", post_grant(late, alice), 201)
    n += 1
    b = call("POST", "/v1/log/entries", allow(gw, late_id, n, alice.did))[1]
    check("... and an allow on it is grant-revoked", codes(b) == ["grant-revoked"], b)

    # §4.3: "Where a point states no marker, an auditor MUST treat its allows as unverifiable"
    n += 1
    b = call("POST", "/v1/log/entries", allow(gw, content_id("unlogged"), n, root.did))[1]
    check("an allow on a grant not logged, by an issuer who logs here: revocation-unverifiable",
          codes(b) == ["revocation-unverifiable"], b)
    check("... its revocation status: unverifiable, the grant not logged",
          b.get("revocation") == {"status": "unverifiable", "reason": "grant-not-logged",
                                  "grant_id": content_id("unlogged")}, b)
    n += 1
    b = call("POST", "/v1/log/entries", allow(gw, content_id("elsewhere"), n, gw.did))[1]
    check("an allow by an issuer who logs no grants here: no finding, yet unverifiable",
          codes(b) == [] and b.get("revocation", {}).get("status") == "unverifiable", b)
    live = grant(root, alice, res)
    live_id = content_id(live)
    expect("a second root grant logged", post_grant(live, root), 201)
    n += 1
    b = call("POST", "/v1/log/entries", allow(gw, live_id, n, root.did,
                                              chain_ids=[content_id("lost root"), live_id]))[1]
    check("an allow whose chain names an unlogged link, on a live grant: unverifiable",
          codes(b) == ["revocation-unverifiable"], b)
    st, got = call("GET", f"/v1/streams?steward={gw.did}")
    listed = [f["code"] for f in got.get("findings", [])]
    check("the steward's findings list them all",
          listed == ["grant-revoked"] * 5 + ["revocation-unverifiable"] * 2, got)

    failed = [c for c in CHECKS if not c["ok"]]
    json.dump({"checks": len(CHECKS), "failed": failed, "root": gid, "child": cid, "marker": m,
               "steward": gw.did}, sys.stdout)
    return 1 if failed else 0


sys.exit(main())
