// Identities that rotate (issue 25; docs/KEYS.md; JCP §2.1): POST /v1/keys/events logs a key
// event (a COSE_Sign1 over the KeyEvent's canonical det-CBOR, signed by its `current` key:
// docs/DECISIONS.md "JCP objects on the wire") once it extends its identity's chain, and GET
// /v1/keys/{identity} answers the chain as the log resolves it. The checks that need no state
// run here (log/keys/read.ts); the chain's (seq, parent, next_hash, fork) run in the sequencer,
// in log order, atomically with the append (log/keys/judge.ts).
import { checkKeyEvent, type EntryFacts, identityJson, PushbackError } from "../../../log/mod.ts";
import { identityJsonLd, identityQuads } from "../../../vocab/mod.ts";
import { NOT_ACCEPTABLE, rdfAnswer } from "../findings_formats.ts";
import { publicBase } from "../public_url.ts";
import { blake3, resolveDidKey } from "../../../verify/mod.ts";
import { CodedError } from "../../../net/mod.ts";
import { ApiError } from "../errors.ts";
import { readEnvelope } from "../envelope_input.ts";
import { activeLog, type RouteGroup } from "../route.ts";

/** An identity path parameter: an Ed25519 did:key (JCP §2.1 identities are inception did:keys). */
function identityParam(raw: string | undefined): string {
  let did = raw ?? "";
  try {
    did = decodeURIComponent(did);
    if (resolveDidKey(did).alg === -8) return did;
  } catch { /* refused below */ }
  throw new ApiError(
    "bad-parameter",
    `Cannot read identity: ${JSON.stringify(did.slice(0, 200))} is not an Ed25519 did:key`,
    { extra: { parameter: "identity" } },
  );
}

/** The key-event route group. */
export const keyRoutes: RouteGroup = {
  name: "keys",
  routes: [
    {
      method: "POST",
      path: "/v1/keys/events",
      class: {
        id: "jc:KeyEventCollection",
        title: "Key events",
        description: "Identities' key events (JCP §2.1 pre-committed rotation), in log order.",
      },
      operation: {
        title: "Log a key event",
        description: "Body: one COSE_Sign1 envelope (application/cose, or JSON {envelope: hex}) " +
          "over a KeyEvent {identity, seq, current, next_hash, parent?, nonce} in canonical " +
          "det-CBOR, signed by `current` (inception: current = identity, no parent; rotation N: " +
          "current hashes to event N-1's next_hash, parent = event N-1's content id). Answered " +
          "once durable with {index, leaf_hash, key_event: {identity, seq, index, shard?, " +
          "forked_at?, fork_of?}, tree_head, inclusion_proof} (shard: the earlier shard that " +
          "holds index, when not the active one). A second, validly chained event at a logged " +
          "seq is logged as fork evidence (201, key_event.fork_of) and freezes the identity.",
        expects: "jc:EnvelopeSubmission",
        returns: "jc:AppendResult",
        possibleStatus: [
          { status: 201, description: "Logged: the chain's next event, or a fork's evidence." },
          { status: 200, description: "The same signed content was already logged." },
          { status: 400, description: "No body, bad JSON or bad hex." },
          { status: 413, description: "Over body_limit or 65,535 bytes." },
          { status: 415, description: "Neither application/cose nor application/json." },
          {
            status: 422,
            description: "Not logged: not-a-key-event, jcp-object-fields, key-event-seq-gap, " +
              "key-event-parent-mismatch, key-event-next-mismatch, key-event-bad-signature, " +
              "key-event-fork (the identity is frozen by a fork), or the envelope's own code.",
          },
          { status: 503, description: "The sequencer is full; Retry-After says when to retry." },
        ],
        toolId: "jouleclaw:keys.event",
        mutating: true,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
        let key;
        try {
          key = await checkKeyEvent(envelope);
        } catch (e) {
          // the envelope's, the object's and the event's own refusals: nothing is logged
          if (e instanceof CodedError && e.kind === "input") {
            throw new ApiError(e.code, e.message, { status: 422 });
          }
          throw e;
        }
        if (!key) {
          throw new ApiError(
            "not-a-key-event",
            "Cannot log the key event: the envelope holds no KeyEvent (JCP §2.1)",
          );
        }
        const facts: EntryFacts = { cid: blake3(envelope), steward: key.current, key };
        let res;
        try {
          // the active shard's (docs/SHARDS.md: service-level appends follow the rotations)
          res = await activeLog(deps).append(envelope, undefined, facts);
        } catch (e) {
          if (e instanceof PushbackError) deps.metrics.inc("jc_pushback_total");
          throw e;
        }
        const body = {
          index: res.index,
          leaf_hash: res.leaf_hash,
          ...(res.key_event ? { key_event: res.key_event } : {}),
          tree_head: res.tree_head,
          inclusion_proof: res.inclusion_proof,
        };
        if (!res.created) return c.json(body, 200);
        c.header("location", `/v1/log/entries/${res.index}`);
        return c.json(body, 201);
      },
    },
    {
      method: "GET",
      path: "/v1/keys/:identity",
      cors: true,
      class: {
        id: "jc:Identity",
        title: "Identity",
        description: "An identity's key-event chain as the log resolves it (JCP §2.1).",
      },
      operation: {
        title: "Resolve an identity",
        description: "{identity, seq, current, next_hash, events: [index…] (the chain, in seq " +
          "order), forks: [{seq, index, first}], forked_at (the first fork's index: the " +
          "identity is frozen)}: its current key is the chain head's `current`. Answered from " +
          "the active shard, which holds every chain (carried at each rotation of the log); " +
          "when an event lies in an earlier shard, event_shards names each event's shard " +
          "(null: the active shard's) and forks and forked_at name theirs (shard, " +
          "first_shard, forked_shard). By content negotiation JSON-LD, N-Quads or " +
          "Turtle: a jc:Identity node, its key events by URL.",
        expects: "owl:Nothing",
        returns: "jc:Identity",
        possibleStatus: [
          { status: 200, description: "Found." },
          { status: 400, description: "The identity is not an Ed25519 did:key." },
          { status: 404, description: "No key event of this identity is logged." },
          NOT_ACCEPTABLE,
        ],
        toolId: "jouleclaw:keys.resolve",
        mutating: false,
      },
      handler: async (c) => {
        const identity = identityParam(c.req.param("identity"));
        // the active shard's: it holds every chain (carried at each rotation, docs/SHARDS.md)
        const rec = await activeLog(c.get("deps")).streamReads?.identity(identity);
        if (!rec) {
          throw new ApiError("not-found", `Cannot find identity ${identity}: no key event logged`);
        }
        // docs/RDF.md "Identities": JSON, or by content negotiation a jc:Identity node
        const json = identityJson(identity, rec);
        return await rdfAnswer(
          c,
          json,
          () => identityJsonLd(json, publicBase(c.get("deps"))),
          () => identityQuads(json, publicBase(c.get("deps"))),
        );
      },
    },
  ],
};
