// THE route table (docs/CONTRACTS.md "api/"): the app (api/http/app.ts) and the Hydra
// ApiDocumentation (api/http/hydra.ts) are both built from ROUTE_GROUPS and nothing else. To add
// routes: write `api/http/routes/<name>.ts` exporting a RouteGroup (see api/http/route.ts for the row
// shape) and add it to the list below. Order matters only for identical paths.
import type { RouteDef, RouteGroup } from "./route.ts";
import { accountRoutes } from "./routes/accounts.ts";
import { discoveryRoutes } from "./routes/discovery.ts";
import { logAppendRoutes } from "./routes/log_append.ts";
import { logProofRoutes } from "./routes/log_proofs.ts";
import { logReadRoutes } from "./routes/log_read.ts";
import { logPolicyRoutes } from "./routes/log_policy.ts";
import { opsRoutes } from "./routes/ops.ts";
import { publicationRoutes } from "./routes/publication.ts";
import { readingsRoutes } from "./routes/readings.ts";
import { rdfRoutes } from "./routes/rdf.ts";
import { shardRoutes } from "./routes/shards.ts";
import { sparqlRoutes } from "./routes/sparql.ts";
import { streamRoutes } from "./routes/streams.ts";
import { grantRoutes } from "./routes/grants.ts";
import { keyRoutes } from "./routes/keys.ts";
import { vocabRoutes } from "./routes/vocab.ts";
import { verifyRoutes } from "./routes/verify.ts";
import { verifierConfigRoutes } from "./routes/verifier_config.ts";
import { webRoutes } from "./routes/web.ts";
import { witnessRoutes } from "./routes/witness.ts";

/** Every route group of the service, one row per group. */
export const ROUTE_GROUPS: RouteGroup[] = [
  discoveryRoutes,
  verifyRoutes,
  verifierConfigRoutes,
  logAppendRoutes,
  logReadRoutes,
  streamRoutes,
  accountRoutes,
  grantRoutes,
  keyRoutes,
  logProofRoutes,
  logPolicyRoutes,
  publicationRoutes,
  opsRoutes,
  readingsRoutes,
  vocabRoutes,
  rdfRoutes,
  sparqlRoutes,
  webRoutes,
  witnessRoutes,
  shardRoutes,
];

/**
 * The route groups every shard serves below its prefix (docs/SHARDS.md: the log routes, the
 * RDF export of its entries included), on both deployments.
 */
export const SHARD_ROUTE_GROUPS: RouteGroup[] = [
  logAppendRoutes,
  logReadRoutes,
  streamRoutes,
  accountRoutes,
  logProofRoutes,
  logPolicyRoutes,
  publicationRoutes,
  rdfRoutes,
];

/** The flat route table. */
export function allRoutes(groups: RouteGroup[] = ROUTE_GROUPS): RouteDef[] {
  return groups.flatMap((g) => g.routes);
}
