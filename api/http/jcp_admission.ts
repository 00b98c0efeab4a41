// What a JCP grant or revocation must be to be logged (issue 25; docs/GRANTS.md): POST /v1/grants
// and POST /v1/revocations read one COSE_Sign1 envelope (verify/jcp_object.ts), check its fields,
// its signer and signature, and then what the log already holds: a delegated grant's parent is
// logged and it narrows it (JCP §4.1, §4.4, §4.8, §4.9); a revocation names a logged grant and is
// signed by that grant's issuer (JCP §4.3). What they check is logged state, which never goes
// away, so a check that passed still holds when the entry commits. Throws the ApiError each
// refusal answers (422 with a stable code, 403 `steward-not-allowed`). Platform-neutral.
import {
  attenuationProblem,
  blake3,
  contentIdBytes,
  grantFieldProblem,
  type JcpObject,
  type JcpObjectKind,
  jcpObjectSignatureProblem,
  mayBeJcpObject,
  readJcpObject,
  revocationFieldProblem,
  toHex,
  VerifyInputError,
} from "../../verify/mod.ts";
import {
  type EntryFacts,
  type GrantAnswer,
  jcpObjectFacts,
  MAX_GRANT_DEPTH,
  type StreamReads,
} from "../../log/mod.ts";
import { ApiError } from "./errors.ts";
import { activeLog, type AppDeps } from "./route.ts";

/** The route that logs each kind of JCP object (and receipts: /v1/log/entries). */
export const JCP_ROUTES: Readonly<Record<JcpObjectKind, string>> = {
  "key-event": "/v1/keys/events",
  grant: "/v1/grants",
  revocation: "/v1/revocations",
};

/** The code POST /v1/log/entries refuses each kind with (docs/GRANTS.md). */
const ROUTE_ONLY: Readonly<Record<JcpObjectKind, string>> = {
  "key-event": "key-events-route-only",
  grant: "grants-route-only",
  revocation: "revocations-route-only",
};

const refuse = (code: string, detail: string, extra?: Record<string, unknown>) =>
  new ApiError(code, detail, { status: 422, ...(extra ? { extra } : {}) });

/**
 * POST /v1/log/entries and its bulk form, and POST /v1/verify: a JCP object is no receipt; it is
 * judged and logged only by its own route, which checks it against the log; refused with a code
 * naming that route (and `kind`, `route` members). Bytes that are no JCP object (or no envelope
 * at all) pass on to the verifier, which reports them.
 */
export function refuseJcpObject(envelope: Uint8Array, doing = "append the envelope"): void {
  if (!mayBeJcpObject(envelope)) return; // no marker field: not decoded (issue 29)
  let o;
  try {
    o = readJcpObject(envelope);
  } catch {
    return;
  }
  if (!o) return;
  const route = JCP_ROUTES[o.kind];
  throw refuse(
    ROUTE_ONLY[o.kind],
    `Cannot ${doing}: it is a JCP ${o.kind}, not a receipt; POST ${route} judges and logs it`,
    { route, kind: o.kind },
  );
}

/** A checked JCP object and the facts the log checks it by (log/streams/grants.ts). */
export interface AdmittedJcp {
  object: JcpObject;
  facts: EntryFacts;
  /** A revocation's grant (as logged). */
  grant?: GrantAnswer;
}

/** The grant reads, or 404 `streams-unavailable` where the log keeps none. */
export function grantReads(deps: AppDeps): StreamReads {
  // the active shard's: grant routes append there (docs/SHARDS.md "Carried state": grant state
  // is per shard, a grant logged in an older shard is not known here)
  const r = activeLog(deps).streamReads;
  if (!r) {
    throw new ApiError("streams-unavailable", "Cannot log grants: this log keeps no streams", {
      status: 404,
    });
  }
  return r;
}

/** Reads and checks the object's envelope, fields and signature as a `kind`. */
async function readAs(deps: AppDeps, envelope: Uint8Array, kind: "grant" | "revocation") {
  grantReads(deps); // a log that keeps no grant state logs no grants
  let o;
  try {
    o = readJcpObject(envelope);
  } catch (e) {
    if (!(e instanceof VerifyInputError)) throw e;
    throw refuse(e.code, e.message);
  }
  if (o?.kind !== kind) {
    const route = o ? JCP_ROUTES[o.kind] : "/v1/log/entries";
    const what = o ? `a JCP ${o.kind}` : "not a JCP object (a receipt?)";
    throw refuse(`not-a-${kind}`, `Cannot log the ${kind}: it is ${what}; see POST ${route}`, {
      route,
    });
  }
  const bad = (kind === "grant" ? grantFieldProblem : revocationFieldProblem)(o.core);
  if (bad) throw refuse("jcp-object-fields", `Cannot log the ${kind}: ${bad}`);
  const sig = await jcpObjectSignatureProblem(o);
  if (sig) {
    throw refuse(
      sig,
      sig === "jcp-object-signer"
        ? `Cannot log the ${kind}: its kid is not its signer (${
          kind === "grant" ? "issuer" : "revoked_by"
        })`
        : `Cannot log the ${kind}: its signature does not verify`,
    );
  }
  // `appends: listed`: only listed signers append, grants and revocations as receipts
  if (deps.config.appends === "listed" && !deps.config.stewards.includes(o.kid)) {
    throw new ApiError(
      "steward-not-allowed",
      `Cannot log the ${kind}: its signer ${o.kid} is not listed on this log`,
    );
  }
  const facts: EntryFacts = {
    cid: blake3(envelope),
    steward: o.kid,
    ...jcpObjectFacts(o.core, o.payload),
  };
  return { o, facts };
}

/** POST /v1/grants: a grant that may be logged, or the refusal. */
export async function admitGrant(deps: AppDeps, envelope: Uint8Array): Promise<AdmittedJcp> {
  const { o, facts } = await readAs(deps, envelope, "grant");
  const pid = o.core.has("parent") ? contentIdBytes(o.core.get("parent"))! : undefined;
  if (!pid) return { object: o, facts };
  const reads = grantReads(deps);
  if (await reads.grant(o.contentId)) return { object: o, facts }; // logged: answered 200
  // Decided (docs/DECISIONS.md "Grants and revocations"): a delegated grant is logged only
  // after its parent; JCP §4.2: alone, nothing shows it narrows what its issuer held.
  const parent = await reads.grant(pid);
  if (!parent) {
    throw refuse(
      "grant-parent-unknown",
      `Cannot log the grant: its parent ${toHex(pid)} is not logged here; log it first`,
    );
  }
  if (parent.depth + 1 > MAX_GRANT_DEPTH) {
    throw refuse(
      "grant-chain-too-deep",
      `Cannot log the grant: it would be ${parent.depth + 1} hops from its root, ` +
        `the most is ${MAX_GRANT_DEPTH}`,
    );
  }
  const bytes = await activeLog(deps).entry(parent.index);
  const p = bytes && readJcpObject(bytes);
  if (!p || p.kind !== "grant") {
    throw new ApiError("internal", `Cannot read the logged parent grant at ${parent.index}`);
  }
  const why = attenuationProblem(o.core, p.core);
  if (why) {
    throw refuse(why.code, `Cannot log the grant: ${why.detail}`, { parent: parent.index });
  }
  return { object: o, facts };
}

/** POST /v1/revocations: a revocation that may be logged, or the refusal. */
export async function admitRevocation(
  deps: AppDeps,
  envelope: Uint8Array,
): Promise<AdmittedJcp> {
  const { o, facts } = await readAs(deps, envelope, "revocation");
  const gid = contentIdBytes(o.core.get("grant_id"))!;
  const grant = await grantReads(deps).grant(gid);
  // JCP §4.3: "verify authority before honoring one — the ids match, the revoker is the
  // grant's issuer, the signature verifies"
  if (!grant) {
    throw refuse(
      "revocation-unknown-grant",
      `Cannot log the revocation: grant ${toHex(gid)} is not logged here`,
    );
  }
  if (o.core.get("revoked_by") !== grant.issuer) {
    throw refuse(
      "revocation-not-issuer",
      `Cannot log the revocation: revoked_by is not the grant's issuer (${grant.issuer})`,
      { grant: grant.index },
    );
  }
  return { object: o, facts, grant };
}
