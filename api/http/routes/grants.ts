// JCP grants and revocations in the log (issue 25; docs/GRANTS.md): POST /v1/grants and POST
// /v1/revocations log one checked COSE_Sign1 envelope each (api/http/jcp_admission.ts) and answer
// like an append (201 new, 200 already logged, 422 with a code); GET /v1/grants/{grant_id} answers
// a logged grant, its first revocation (its marker, JCP §4.3) and its chain, root first (§4.2).
// The allows logged after a revocation carry the finding `grant-revoked` (log/streams/grants.ts).
import type { Context } from "hono";
import { PushbackError } from "../../../log/mod.ts";
import { bytesEqual, fromHex, toHex } from "../../../verify/mod.ts";
import { ApiError } from "../errors.ts";
import { readEnvelope } from "../envelope_input.ts";
import { admitGrant, admitRevocation, type AdmittedJcp, grantReads } from "../jcp_admission.ts";
import { hashParam } from "../params.ts";
import { activeLog, type AppEnv, type RouteGroup, type StatusDoc } from "../route.ts";

const POSTED: StatusDoc[] = [
  { status: 201, description: "Logged; Location names the entry." },
  { status: 200, description: "Already logged: that entry." },
  { status: 400, description: "No body, bad JSON or bad hex." },
  { status: 403, description: "`appends: listed` and the signer is not listed." },
  { status: 404, description: "This log keeps no streams (streams-unavailable)." },
  { status: 413, description: "Over body_limit, or an envelope over 65,535 bytes." },
  { status: 415, description: "Neither application/cose nor application/json." },
  { status: 503, description: "The sequencer is full; Retry-After says when to retry." },
];

/** Appends an admitted object and answers as an append does, with `extra` members. */
async function logIt(
  c: Context<AppEnv>,
  envelope: Uint8Array,
  a: AdmittedJcp,
  extra: Record<string, unknown>,
): Promise<Response> {
  const deps = c.get("deps");
  let res;
  try {
    res = await activeLog(deps).append(envelope, undefined, a.facts); // docs/SHARDS.md
  } catch (e) {
    if (e instanceof PushbackError) deps.metrics.inc("jc_pushback_total");
    throw e;
  }
  deps.metrics.set("jc_tree_size", res.tree_head.size);
  const body = {
    index: res.index,
    leaf_hash: res.leaf_hash,
    ...extra,
    tree_head: res.tree_head,
    inclusion_proof: res.inclusion_proof,
    ...(res.findings ? { findings: res.findings } : {}),
  };
  if (!res.created) return c.json(body, 200);
  c.header("location", `/v1/log/entries/${res.index}`);
  return c.json(body, 201);
}

/** The grant route group. */
export const grantRoutes: RouteGroup = {
  name: "grants",
  routes: [
    {
      method: "POST",
      path: "/v1/grants",
      class: {
        id: "jc:GrantCollection",
        title: "Grants",
        description: "JCP §4 grants logged here (issue 25).",
      },
      operation: {
        title: "Log a grant",
        description: "Logs one JCP §4 grant: a COSE_Sign1 envelope (alg -8, kid the issuer's " +
          "did:key) over the grant's canonical det-CBOR. A delegated grant (with `parent`) is " +
          "logged only after its parent, and only if it narrows it (JCP §4.1, §4.4, §4.8, " +
          "§4.9). Answers {index, leaf_hash, grant_id, tree_head, inclusion_proof}.",
        expects: "jc:EnvelopeSubmission",
        returns: "jc:AppendResult",
        possibleStatus: [...POSTED, {
          status: 422,
          description: "not-a-grant (names the right route), a cose-* or jcp-object-* code " +
            "(fields, signer, signature), grant-parent-unknown, grant-chain-broken, " +
            "grant-delegation-forbidden, grant-attenuation-violation or grant-chain-too-deep.",
        }],
        toolId: "jouleclaw:grants.log",
        mutating: true,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
        const a = await admitGrant(deps, envelope);
        return await logIt(c, envelope, a, { grant_id: toHex(a.object.contentId) });
      },
    },
    {
      method: "GET",
      path: "/v1/grants/:grant_id",
      cors: true,
      class: {
        id: "jc:GrantStatus",
        title: "Grant",
        description: "A logged JCP §4 grant, its revocation and its chain.",
      },
      operation: {
        title: "Get a grant",
        description: "{grant_id, index, issuer, subject, depth, parent, revocation, chain, " +
          "entry}: the grant's entry, its first revocation's index (its revocation marker, " +
          "JCP §4.3; absent when not revoked), and its ancestors root first (JCP §4.2), each " +
          "{grant_id, index, revocation}. `entry` is the URL of its envelope's entry.",
        expects: "owl:Nothing",
        returns: "jc:GrantStatus",
        possibleStatus: [
          { status: 200, description: "Found." },
          { status: 400, description: "grant_id is not 64 lowercase hex (bad-parameter)." },
          { status: 404, description: "No grant with that id is logged here." },
        ],
        toolId: "jouleclaw:grants.get",
        mutating: false,
      },
      handler: async (c) => {
        const id = hashParam("grant_id", c.req.param("grant_id"));
        const g = await grantReads(c.get("deps")).grant(fromHex(id));
        if (!g) throw new ApiError("not-found", `Cannot find grant ${id}: none is logged here`);
        c.header("cache-control", "no-cache"); // a revocation may come
        return c.json({ grant_id: id, ...g, entry: `/v1/log/entries/${g.index}` });
      },
    },
    {
      method: "POST",
      path: "/v1/revocations",
      class: {
        id: "jc:RevocationCollection",
        title: "Revocations",
        description: "JCP §4.3 revocations logged here (issue 25).",
      },
      operation: {
        title: "Log a revocation",
        description: "Logs one JCP §4.3 revocation of a logged grant, signed by its issuer " +
          "(kid = revoked_by). Its index is the grant's revocation marker: every jcp allow " +
          "against the grant or a chain containing it logged after it carries the finding " +
          "grant-revoked. A second, different revocation of a revoked grant is answered 200 " +
          "with the first's index (already_revoked: true) and logs nothing. Answers {index, " +
          "leaf_hash, grant_id, revoked_grant_index, tree_head, inclusion_proof}.",
        expects: "jc:EnvelopeSubmission",
        returns: "jc:AppendResult",
        possibleStatus: [...POSTED, {
          status: 422,
          description: "not-a-revocation (names the right route), a cose-* or jcp-object-* " +
            "code (fields, signer, signature), revocation-unknown-grant or " +
            "revocation-not-issuer.",
        }],
        toolId: "jouleclaw:revocations.log",
        mutating: true,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
        const a = await admitRevocation(deps, envelope);
        const g = a.grant!;
        const extra = {
          grant_id: toHex(a.facts.revokes!),
          revoked_grant_index: g.index,
        };
        const first = g.revocation;
        if (first !== undefined) {
          // Decided (docs/DECISIONS.md): the first revocation is the marker; a second one of
          // the same grant adds nothing, so it is not logged (the same envelope: its entry).
          const log = activeLog(deps); // the shard that holds the grant state
          const bytes = await log.entry(first);
          if (!bytes || !bytesEqual(bytes, envelope)) {
            const leaf = await log.leafHashAt(first);
            return c.json({
              index: first,
              leaf_hash: leaf && toHex(leaf),
              ...extra,
              already_revoked: true,
            }, 200);
          }
        }
        return await logIt(c, envelope, a, extra);
      },
    },
  ],
};
