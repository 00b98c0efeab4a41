// GET /v1/verifier-config (issue 23; docs/CONFIG.md "The configuration in force"): the
// verifier-config/1 document the service verifies under now, as logged: its digest (BLAKE3 of
// the logged envelope's bytes), its log index, and the document. Every report and append answer
// names it by `verifier_config: {digest, index}`. Platform-neutral.
import { ApiError } from "../errors.ts";
import type { RouteGroup } from "../route.ts";
import { verifierConfigRef } from "../verifier_options.ts";

/** The verifier-config route group. */
export const verifierConfigRoutes: RouteGroup = {
  name: "verifier-config",
  routes: [{
    method: "GET",
    path: "/v1/verifier-config",
    cors: true,
    class: {
      id: "jc:VerifierConfig",
      title: "Verifier configuration in force",
      description: "The verifier-config/1 document the service verifies under: the key " +
        "directory's public keys, gateway ids (never their keys), reference vectors and drift " +
        "bands, policies, the append policy and the profiles accepted; signed by the operator " +
        "key and logged.",
    },
    operation: {
      title: "Get the verifier configuration in force",
      description: "{digest, index, config}: digest is BLAKE3 of the logged envelope's bytes " +
        "(hex), index its log entry (GET /v1/log/entries/{index} gives the signed envelope), " +
        "config the document's JSON projection. While the log holds none, the embedded " +
        "defaults, with digest and index null.",
      expects: "owl:Nothing",
      returns: "jc:VerifierConfig",
      possibleStatus: [
        { status: 200, description: "The configuration in force." },
        { status: 404, description: "This deployment logs no configuration." },
      ],
      toolId: "jouleclaw:verifier_config",
      mutating: false,
    },
    handler: async (c) => {
      const now = await c.get("deps").services?.verifierConfig?.inForce();
      if (!now) {
        throw new ApiError(
          "not-found",
          "Cannot find the verifier configuration: none is logged",
        );
      }
      c.header("cache-control", "no-cache");
      // the embedded defaults while none is logged: digest and index null (docs/DECISIONS.md)
      // (in a shard other than s0: `shard` names it)
      return c.json({ ...await verifierConfigRef(c.get("deps")), config: now.doc });
    },
  }],
};
