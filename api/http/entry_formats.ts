// Representations of a log entry (API.md `GET /v1/log/entries/{index}`), table-driven: each row
// is a media type and how to produce it. Negotiation (api/http/negotiate.ts) picks a row in table
// order; 406 when none is acceptable. Other folders add rows (the RDF types) by appending to
// ENTRY_FORMATS. Platform-neutral.
import type { Context } from "hono";
import {
  blake3,
  loggedVerdict,
  openVerifierConfig,
  readJcpObject,
  toHex,
  toJson,
  type Verdict,
  verifierConfigCoreOf,
} from "../../verify/mod.ts";
import type { VerificationReport } from "../../verify/mod.ts";
import type { AppEnv } from "./route.ts";
import type { EntryFormat, EntryView } from "./entry_format.ts";
import { verifyWith } from "./verifier_options.ts";
import { RDF_ENTRY_FORMATS } from "./routes/rdf.ts";
import { publicBase } from "./public_url.ts";
import { type JudgedTable, judgedTable } from "./judged_configs.ts";
import { revocationOf } from "./revocation_status.ts";
import { entryFacts } from "../../log/mod.ts";

export type { EntryFormat, EntryView } from "./entry_format.ts";

/**
 * The JSON object of an entry (API.md): `{index, leaf_hash, verdict, schema, steward, envelope,
 * receipt}`.
 */
export async function entryJson(view: EntryView): Promise<Record<string, unknown>> {
  const under = await view.judgedUnder();
  const { url: _url, ...ref } = under ?? { url: "" };
  const named = under ? { verifier_config: ref } : {};
  if (verifierConfigCoreOf(view.envelope)) {
    // issue 23: a configuration entry (logged by the service itself): its document, not a receipt
    const config = openVerifierConfig(view.envelope);
    return {
      index: view.index,
      leaf_hash: view.leafHash,
      schema: config.jc_config,
      steward: config.operator,
      envelope: toHex(view.envelope),
      config,
      ...named,
    };
  }
  const jcp = jcpObjectOf(view.envelope);
  if (jcp) {
    // issue 25: a JCP object (a grant, a revocation, a key event) is no receipt: no verdict class
    const out: Record<string, unknown> = {
      index: view.index,
      leaf_hash: view.leafHash,
      kind: jcp.kind,
      steward: jcp.kid,
      envelope: toHex(view.envelope),
      content_id: toHex(blake3(jcp.payload)), // JCP §3: a grant's grant_id
      object: toJson(jcp.core),
    };
    const at = await view.integrated?.();
    if (at) out.integrated_in = at;
    return out;
  }
  const r = await view.report();
  const out: Record<string, unknown> = {
    index: view.index,
    leaf_hash: view.leafHash,
    verdict: await view.verdict(),
    schema: r.schema,
    steward: r.steward,
    envelope: toHex(view.envelope),
    receipt: r.receipt,
    ...named,
  };
  // issue 25: a jcp allow's revocation status (JCP §4.3; docs/GRANTS.md)
  const revocation = await view.revocation?.(r.receipt);
  if (revocation) out.revocation = revocation;
  // JCP §11: the signed head is the one time a third party can trust (issue 24)
  const at = await view.integrated?.();
  if (at) out.integrated_in = at;
  return out;
}

/** The JCP object an entry holds, or undefined for a receipt (docs/DECISIONS.md, issue 25). */
function jcpObjectOf(envelope: Uint8Array) {
  try {
    return readJcpObject(envelope);
  } catch {
    return undefined;
  }
}

/** Builds an EntryView whose report is computed at most once. */
export function entryView(
  c: Context<AppEnv>,
  index: number,
  leafHash: string,
  envelope: Uint8Array,
): EntryView {
  let report: Promise<VerificationReport> | undefined;
  let verdict: Promise<Verdict | undefined> | undefined;
  let table: Promise<JudgedTable> | undefined;
  // the public URL (a shard's prefix included), never the request's Host (issue 27)
  const deps = c.get("deps");
  const base = publicBase(deps);
  const url = `${base}/v1/log/entries/${index}`;
  const judged = () => table ??= judgedTable(deps);
  return {
    index,
    leafHash,
    envelope,
    url,
    report: () => report ??= verifyWith(deps, envelope),
    // a configuration entry (issue 23) or a JCP object (issue 25) is no receipt: it has no
    // verdict class; a receipt's is
    // step 6 under the reference vectors of the configuration it was judged under
    verdict: () =>
      verdict ??= verifierConfigCoreOf(envelope) || jcpObjectOf(envelope)
        ? Promise.resolve(undefined)
        : judged().then((t) => loggedVerdict(envelope, t.at(index).options)),
    integrated: () => deps.log.streamReads?.integratedIn(index) ?? Promise.resolve(undefined),
    revocation: (core) => revocationOf(deps, index, core, entryFacts(envelope)?.allow),
    judgedUnder: async () => (await judged()).at(index).ref,
  };
}

/** The representation table, in server preference order. */
export const ENTRY_FORMATS: EntryFormat[] = [
  {
    mediaType: "application/json",
    render: async (v, c) => c.json(await entryJson(v)),
  },
  {
    // RFC 9052 §2: the raw COSE_Sign1 bytes exactly as submitted (the Merkle leaf's preimage).
    mediaType: "application/cose",
    render: (v) =>
      new Response(v.envelope.slice(), {
        headers: { "content-type": 'application/cose; cose-type="cose-sign1"' },
      }),
  },
  // JouleClaw SPEC §13: JSON-LD, N-Quads and Turtle (api/http/routes/rdf.ts).
  ...RDF_ENTRY_FORMATS,
];
