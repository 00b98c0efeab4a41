// `deno task examples:gen [DIR]`: writes the ready receipts of examples/ (README "Try it in a
// minute"): each signed core as its JSON projection (`*.core.json`, the input of `client seal`)
// and sealed (`*.cose`), all valid under the service's DEFAULT configuration (did:key stewards,
// no gateway keys, no key directory, no reference vectors), plus one invalid receipt whose reason
// is plain. Deterministic: the key is BLAKE3 of a fixed label, Ed25519 signatures are
// deterministic, times are fixed. tests/examples_test.ts regenerates and compares byte for byte.
import { sealCore, type SigningKey } from "../client/mod.ts";
import { keyFileText, keyScheme } from "../client/mod.ts";
import { blake3, coseSign1, encodeCbor, fromJson, verifyEnvelope } from "../verify/mod.ts";
import { b3, POLICY } from "../conformance/gen/config.ts";
import { jcp2 } from "../conformance/gen/siblings.ts";
import { policyDigest } from "../verify/mod.ts";

/** The examples' steward key: published, for trying things out only, never for real receipts. */
export function exampleKey(): SigningKey {
  return keyScheme("EdDSA").fromSecret(
    blake3(new TextEncoder().encode("jouleclaw-examples/v1/steward")),
  );
}

const T = "2026-06-01T09:30:00Z";

type Core = Record<string, unknown>;

/** A JCR-1 cascade receipt of one L1 tool call metered by a shunt (4200 µJ), claiming `joules`. */
function receiptCore(id: string, joules: number, steward: string): Core {
  return {
    jc_receipt: "1",
    id,
    closed_at: T,
    input_hash: b3("extract the invoice number from: INV-2026-0042"),
    tier: "L1",
    joules_uj: joules,
    energy_provenance: "HwShunt",
    steward,
    tools_touched: [{
      tool_id: "lawful:regex-extract",
      joules_uj: 4200,
      energy_provenance: "HwShunt",
    }],
    claims: [],
  };
}

/** One example: its file stem, core, and what verifying it must answer. */
export interface Example {
  stem: string;
  description: string;
  core: Core;
  /** The failing codes (empty: valid). */
  codes: string[];
}

/** The examples, in the order the README uses them. */
export function examples(steward: string): Example[] {
  return [{
    stem: "receipt",
    description: 'JCR-1 cascade receipt (jc_receipt "1"): an L1 tool call metered by a shunt',
    codes: [],
    core: receiptCore("example-0001", 4200, steward),
  }, {
    stem: "policy",
    description: "policy/1 receipt (SPEC §10): a policy engine allowed a workspace read",
    codes: [],
    core: {
      jc_receipt: "policy/1",
      id: "example-pol-0001",
      closed_at: T,
      steward,
      engine_id: "jclaw-policyd/example",
      audit_sequence: 1,
      policy_version: 2,
      agent: steward,
      action: { kind: "filesystem", path: "/workspace/notes/x.md", mode: "read" },
      decision: { kind: "allow", rule: "read-workspace" },
      policy_digest: policyDigest(POLICY),
    },
  }, {
    stem: "jcp2",
    description: "jcp/2 receipt (JCP §8): an enforcement point allowed a metered tool call",
    codes: [],
    // the conformance suite's jcp/2 allow, with the examples' key in every role
    core: jcp2({ grant_id: b3("example grant"), issuer: steward, subject: steward, steward }),
  }, {
    stem: "invalid-joules-below-tools",
    description: "INVALID: claims 1000 µJ in total but its one tool alone used 4200 µJ " +
      "(JCR-1 §6 step 5: joules_uj >= Σ tools_touched.joules_uj)",
    codes: ["joules-below-tools"],
    core: receiptCore("example-0002", 1000, steward),
  }];
}

/** The files of examples/, by name (text or bytes). */
export async function exampleFiles(): Promise<Record<string, string | Uint8Array>> {
  const key = exampleKey();
  const files: Record<string, string | Uint8Array> = { "steward.key.json": keyFileText(key) };
  const index: Record<string, unknown>[] = [];
  for (const ex of examples(key.kid)) {
    files[`${ex.stem}.core.json`] = JSON.stringify(ex.core, null, 2) + "\n";
    let envelope: Uint8Array;
    if (ex.codes.length === 0) {
      envelope = (await sealCore(ex.core, key, (e) => verifyEnvelope(e))).envelope;
    } else {
      // `client seal` refuses what the verifier refuses: the invalid example is signed directly.
      envelope = coseSign1(encodeCbor(fromJson(ex.core)), key.secret, key.kid);
    }
    files[`${ex.stem}.cose`] = envelope;
    index.push({
      file: `${ex.stem}.cose`,
      core: `${ex.stem}.core.json`,
      description: ex.description,
      valid: ex.codes.length === 0,
      codes: ex.codes,
    });
  }
  files["index.json"] = JSON.stringify({ steward: key.kid, examples: index }, null, 2) + "\n";
  return files;
}

if (import.meta.main) {
  const dir = Deno.args[0] ?? new URL(".", import.meta.url).pathname;
  for (const [name, content] of Object.entries(await exampleFiles())) {
    const path = `${dir.replace(/\/$/, "")}/${name}`;
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
  console.log(`examples written to ${dir}`);
}
