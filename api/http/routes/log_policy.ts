// `GET /v1/log/policy`: the operator's default C2SP tlog-policy for this log (issue 13; docs/
// WITNESS.md): the SHA-256 view's log key (the view witnesses cosign, PUBLICATION.md Decision P3)
// with this service's public URL, every configured witness (`witnesses`: url + cosignature vkey),
// and the quorum "all of them" (`quorum none` when no witness is configured). The verification page
// uses it unless the person loads a policy of their own; clients may pin it with `--policy`.
// A policy is a statement of the operator's, to be read and pinned, not trusted blindly.
import type { RouteGroup } from "../route.ts";
import { c2sp } from "../../../log/mod.ts";
import { publicRoot } from "../public_url.ts";
import { listedShards, shardBase } from "../../services/shard_logs.ts";

/** A log the policy names: its SHA-256 view's vkey and URL. */
export interface PolicyLogLine {
  vkey: string;
  url: string;
}

/**
 * The default policy text (pure; tested against the policy parser) for one log or, on a sharded
 * service, every shard's log (docs/SHARDS.md: one `log` line per shard, s0 first; past the
 * parser's limit of POLICY_LIMITS.logs, the newest that many).
 */
export function defaultPolicy(
  logs: PolicyLogLine[],
  witnesses: { url: string; vkey: string }[],
): string {
  const named = logs.slice(-c2sp.POLICY_LIMITS.logs);
  const lines = [
    "# The log operator's default witness policy (C2SP tlog-policy).",
    ...named.map((l) => `log ${l.vkey} ${l.url}`),
  ];
  const names: string[] = [];
  witnesses.forEach((w, i) => {
    // Policy-local names: the witness's key name when it is a plain word, else w<i>.
    const keyName = w.vkey.split("+")[0];
    const name = /^[A-Za-z0-9._-]+$/.test(keyName) && !names.includes(keyName) && keyName !== "none"
      ? keyName
      : `w${i + 1}`;
    names.push(name);
    lines.push(`witness ${name} ${w.vkey} ${w.url}`);
  });
  if (names.length === 0) lines.push("quorum none");
  else {
    lines.push(`group operator-witnesses all ${names.join(" ")}`);
    lines.push("quorum operator-witnesses");
  }
  const text = lines.join("\n") + "\n";
  c2sp.parsePolicy(new TextEncoder().encode(text)); // what we publish must parse
  return text;
}

/** The default policy route group. */
export const logPolicyRoutes: RouteGroup = {
  name: "log-policy",
  routes: [
    {
      method: "GET",
      path: "/v1/log/policy",
      cors: true,
      class: {
        id: "jc:LogPolicy",
        title: "Default witness policy",
        description: "The operator's default C2SP tlog-policy for this log's SHA-256 view.",
      },
      operation: {
        title: "Get the default witness policy",
        description:
          "A C2SP tlog-policy (text/plain): the SHA-256 view's log key, the configured witnesses " +
          "and the quorum all of them (none when no witness is configured).",
        expects: "owl:Nothing",
        returns: "jc:LogPolicy",
        possibleStatus: [{ status: 200, description: "The policy." }],
        toolId: "jouleclaw:log.policy",
        mutating: false,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        // One policy for the service at every shard's prefix (docs/SHARDS.md): every listed
        // shard's SHA-256 log, each at its own URL below the public URL (never the Host, issue
        // 27), so a receipt of any shard is checked against a policy that names its log.
        const root = publicRoot(deps);
        const logs = (await listedShards(deps)).map((s) => ({
          vkey: s.log.vkeys().sha256,
          url: `${root}${shardBase(s.prefix)}/log/sha256`,
        }));
        const text = defaultPolicy(logs, deps.config.witnesses ?? []);
        return new Response(text, {
          headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" },
        });
      },
    },
  ],
};
