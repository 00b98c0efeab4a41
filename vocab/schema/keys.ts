// Identities that rotate (issue 25; docs/KEYS.md; JCP §2.1): a key event as the log holds it (a
// signed JCP object, no schema tag: the log classes it by its fields, docs/DECISIONS.md "JCP
// objects on the wire"), and an identity as the log resolves it (GET /v1/keys/{identity}).
import { DID_KEY, HEX64, iri, opt, req, s, u64 } from "./build.ts";
import type { ClassDef } from "./build.ts";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const KEY_CLASSES: ClassDef[] = [
  {
    name: "KeyEvent",
    clause: "JCP §2.1",
    comment: "A key event of an identity (pre-committed rotation): inception (seq 0, signed by " +
      "the identity key) or rotation N (signed by its new current key, which hashes to event " +
      "N-1's next_hash). Logged only when it extends the identity's chain (docs/KEYS.md).",
    fields: [
      req("identity", "identity", s(DID_KEY), "The inception did:key, stable for life."),
      req("seq", "seq", u64, "0 = inception, N = the Nth rotation."),
      req("current", "currentKey", s(DID_KEY), "The controlling key from this event on."),
      req(
        "next_hash",
        "nextKeyHash",
        s(HEX64),
        "BLAKE3 of the next key's 32 public bytes: the pre-committed next key.",
      ),
      opt(
        "parent",
        "parent",
        s(HEX64),
        "The content id of what this follows: the grant it narrows (JCP §4.1), or the previous key event (JCP §2.1; absent at inception).",
      ),
      req("nonce", "nonce", s("^[0-9a-f]{32}$"), "16 random bytes."),
    ],
  },
  {
    name: "Identity",
    clause: "JCP §2.1; docs/KEYS.md",
    comment: "An identity as the log resolves it from its key events: its current key and the " +
      "pre-committed next key's hash (GET /v1/keys/{identity}).",
    fields: [
      req("identity", "identity", s(DID_KEY), "The inception did:key."),
      req("seq", "seq", u64, "The seq of the chain's last event."),
      req("current", "currentKey", s(DID_KEY), "The key in force."),
      req("next_hash", "nextKeyHash", s(HEX64), "BLAKE3 of the pre-committed next key."),
      req(
        "events",
        "keyEvents",
        iri,
        "The entries of its key-event chain (their URLs), in seq order.",
        { list: true },
      ),
      opt(
        "forked_at",
        "forkedAt",
        iri,
        "The first fork's entry (its URL): the identity is frozen.",
      ),
    ],
  },
];
