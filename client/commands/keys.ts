// The key-event commands of `deno task client` (issue 25; docs/KEYS.md): send a key event that
// `client keygen --rotation` sealed, and resolve an identity as the log resolves it.
import { str } from "../../cli/mod.ts";
import { request } from "../../net/mod.ts";
import { readEnvelopeFile } from "../envelope_file.ts";
import { type Command, EXIT, EXITS, netOf, out, path, URL_OPTS, urlOf } from "./common.ts";

/** Rows of the client's command table (client/commands/mod.ts). */
export const KEY_COMMANDS: Record<string, Command> = {
  "key-event": {
    brief: "log a key event (JCP §2.1) that keygen --rotation sealed",
    spec: {
      name: "deno task client key-event",
      args: "FILE",
      summary: 'Sends a key event (a COSE_Sign1 file: raw bytes, hex or {"envelope": hex}) to ' +
        "POST /v1/keys/events and prints the answer ({index, key_event, tree_head, ...}). A " +
        "refusal (a seq gap, a wrong parent, a key other than the pre-committed one, a bad " +
        "signature, an identity frozen by a fork) prints the problem and exits 3.",
      options: [URL_OPTS[0]],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const envelope = await readEnvelopeFile(path(p.positional[0], e));
      const base = urlOf(p, e).replace(/\/+$/, "");
      const res = await request(`${base}/v1/keys/events`, {
        ...netOf(e),
        method: "POST",
        headers: { "content-type": "application/cose", accept: "application/json" },
        body: envelope,
        kind: "json",
      });
      const body = res.json() as Record<string, unknown>;
      if (res.status === 422) {
        console.error(`Cannot log the key event: ${body.code}: ${body.detail}`);
        out(body);
        return EXIT.check;
      }
      if (!res.ok) {
        console.error(`Cannot log the key event: HTTP ${res.status} ${body.code ?? ""}`);
        return EXIT.error;
      }
      out({ ...body, created: res.status === 201 });
      return EXIT.ok;
    },
  },
  identity: {
    brief: "resolve an identity's key-event chain (GET /v1/keys/{identity})",
    spec: {
      name: "deno task client identity",
      args: "DID",
      summary: "Prints the identity's chain as the log resolves it: {identity, seq, current, " +
        "next_hash, events, forks, forked_at}; exit 1 when the log has no event of it.",
      options: [URL_OPTS[0]],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const base = (str(p, "url") ?? urlOf(p, e)).replace(/\/+$/, "");
      const res = await request(`${base}/v1/keys/${p.positional[0]}`, {
        ...netOf(e),
        headers: { accept: "application/json" },
        kind: "json",
      });
      const body = res.json();
      if (!res.ok) {
        console.error(`Cannot resolve the identity: HTTP ${res.status}`);
        out(body);
        return EXIT.error;
      }
      out(body);
      return EXIT.ok;
    },
  },
};
