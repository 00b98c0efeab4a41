// The verification page's browser entry (issue 13): a person verifies a receipt in this browser
// with the same code as the CLI (verify/, bundled), never by asking the server's /v1/verify, then
// checks the log's answer against a signed checkpoint (log panel). Inputs: a real file input, a
// drop zone that is also a button, pasted hex, and shareable links `/?index=N` (of shard s0, or
// `&shard=sN`), `/?leaf=<hex>` (in whichever shard holds it), `/?url=<receipt URL>`;
// `/?view=explore` is the explorer.
/// <reference lib="dom" />
import {
  blake3,
  entryLeafHash,
  envelopeFromInput,
  readJcpObject,
  toHex,
  toJson,
} from "../../verify/mod.ts";
import {
  mergeOptions,
  optionsFromConfig,
  optionsFromVerifierConfig,
  type VerifierConfigRules,
  type VerifierOptions,
  verifyEnvelope,
} from "../../verify/mod.ts";
import { byId, replace } from "./dom.ts";
import { renderReport, renderUnusable, type Verdict } from "./report_view.ts";
import { getBytes, getJson } from "./net.ts";
import { checkInLog } from "./log_panel.ts";
import { type PolicyView, readPolicy } from "./policy.ts";
import { shardParam, shardPath, showEntryViews, showExplorer } from "./explorer.ts";
import { findShard } from "./shards.ts";
import { renderJcpObject } from "./jcp_view.ts";

/** Largest input the page reads (the CLI's limit is 16 MiB; an entry is at most 65,535 bytes). */
const MAX_INPUT = 16 * 1024 * 1024;

let verifierOptions: VerifierOptions = {};
/** Whether the person loaded an operator configuration file (it then wins over the log's). */
let configLoaded = false;
let loadedPolicy: PolicyView | undefined;

/** The log's published verifier configuration as options, and the line that says so. */
interface PublishedConfig {
  options: VerifierOptions;
  line: string;
}
let published: Promise<PublishedConfig | undefined> | undefined;

/**
 * The configuration the log judges under (GET /v1/verifier-config; issue 23), read once: step 6
 * (JCR-1 §6, the reference vectors and drift bands) then classes an entry as the log did (an
 * alert, not joule-unverified for want of the reference). Undefined where none is served.
 */
function publishedConfig(): Promise<PublishedConfig | undefined> {
  return published ??= (async () => {
    try {
      const c = await getJson<
        { digest: string | null; index: number | null; config: VerifierConfigRules }
      >("/v1/verifier-config");
      const at = c.index === null
        ? "its embedded defaults: none is logged yet"
        : `log entry ${c.index}, digest ${c.digest}`;
      return {
        options: optionsFromVerifierConfig(c.config),
        line: `Judging under the log's published verifier configuration (${at}): ` +
          `${Object.keys(c.config.reference_vectors).length} reference vectors.`,
      };
    } catch {
      return undefined;
    }
  })();
}

/** The options a receipt is judged under: the person's file, else the log's, else none. */
async function judgingOptions(): Promise<VerifierOptions> {
  if (configLoaded) return verifierOptions;
  return (await publishedConfig())?.options ?? {};
}

/** Says on the configuration's status line what the page judges under (`data-config`). */
async function showConfigStatus(): Promise<void> {
  const status = byId("config-status");
  const p = await publishedConfig();
  if (configLoaded || !p) return;
  replace(status, p.line);
  status.setAttribute("data-config", "log");
}

/** The policy in use: one the person loaded, else the log operator's default. */
async function currentPolicy(): Promise<PolicyView | undefined> {
  if (loadedPolicy) return loadedPolicy;
  try {
    return readPolicy(
      await getBytes("/v1/log/policy", "checkpoint"),
      "the log operator's default policy",
    );
  } catch {
    return undefined;
  }
}

async function readFile(f: File): Promise<Uint8Array> {
  if (f.size > MAX_INPUT) throw new Error(`the file is ${f.size} bytes, over ${MAX_INPUT}`);
  return new Uint8Array(await f.arrayBuffer());
}

/** The JCP object an envelope holds, or undefined (a receipt, or bytes the verifier reports). */
function jcpObjectOf(envelope: Uint8Array) {
  try {
    return readJcpObject(envelope);
  } catch {
    return undefined;
  }
}

/** Verifies input bytes (raw COSE, hex, or {"envelope": hex}) and shows the verdict. */
export async function verifyInput(input: Uint8Array, source: string): Promise<Verdict> {
  const region = byId("result");
  region.setAttribute("aria-busy", "true");
  region.removeAttribute("data-verdict");
  byId("log-panel").hidden = true;
  try {
    let envelope: Uint8Array;
    try {
      envelope = envelopeFromInput(input);
    } catch (e) {
      return renderUnusable(region, `${source}: ${(e as Error).message}`);
    }
    // issue 25: a key event, a grant or a revocation is no receipt: say what it is instead
    const jcp = jcpObjectOf(envelope);
    if (jcp) {
      const object = toJson(jcp.core) as Record<string, unknown>;
      renderJcpObject(region, jcp.kind, object, toHex(blake3(jcp.payload)));
      void checkInLog(envelope, toHex(entryLeafHash(envelope)), await currentPolicy());
      return "unusable";
    }
    const report = await verifyEnvelope(envelope, await judgingOptions());
    const verdict = renderReport(region, report);
    void checkInLog(envelope, report.leaf_hash, await currentPolicy());
    return verdict;
  } finally {
    region.removeAttribute("aria-busy");
  }
}

function wireInputs(): void {
  const file = byId<HTMLInputElement>("file");
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (f) await verifyInput(await readFile(f), f.name);
  });
  const drop = byId<HTMLButtonElement>("drop");
  drop.addEventListener("click", () => file.click());
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files?.[0];
    if (f) await verifyInput(await readFile(f), f.name);
  });
  const hexForm = byId<HTMLFormElement>("paste-form");
  hexForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = byId<HTMLTextAreaElement>("hex").value;
    await verifyInput(new TextEncoder().encode(text), "pasted text");
  });
  const config = byId<HTMLInputElement>("config");
  config.addEventListener("change", async () => {
    const status = byId("config-status");
    const f = config.files?.[0];
    configLoaded = false;
    verifierOptions = {};
    if (!f) {
      replace(status, "No operator configuration: did:key signers only.");
      status.setAttribute("data-config", "none");
      return void showConfigStatus();
    }
    try {
      const doc = JSON.parse(new TextDecoder().decode(await readFile(f)));
      verifierOptions = mergeOptions(optionsFromConfig(doc));
      configLoaded = true;
      replace(status, `Loaded operator configuration ${f.name}.`);
      status.setAttribute("data-config", "loaded");
    } catch (e) {
      replace(status, `Cannot use ${f.name}: ${(e as Error).message}`);
      status.setAttribute("data-config", "none");
    }
  });
}

function wirePolicy(): void {
  const input = byId<HTMLInputElement>("policy");
  input.addEventListener("change", async () => {
    const status = byId("policy-status");
    const f = input.files?.[0];
    loadedPolicy = undefined;
    if (!f) {
      replace(status, "Using the log operator's default policy.");
      return;
    }
    try {
      loadedPolicy = readPolicy(await readFile(f), `policy ${f.name}`);
      replace(status, `Using policy ${f.name} (quorum ${loadedPolicy.policy.quorum}).`);
    } catch (e) {
      replace(status, `Cannot use ${f.name}: ${(e as Error).message}`);
    }
  });
}

async function fromLink(params: URLSearchParams): Promise<void> {
  const index = params.get("index");
  const leaf = params.get("leaf");
  const url = params.get("url");
  const region = byId("result");
  try {
    const shard = shardParam(params);
    if (shard === null) {
      renderUnusable(region, `shard ${JSON.stringify(params.get("shard"))} is not a shard id`);
      return;
    }
    if (index !== null) {
      if (!/^(0|[1-9][0-9]{0,15})$/.test(index)) {
        renderUnusable(region, `index ${JSON.stringify(index)} is not a decimal entry index`);
        return;
      }
      const bytes = await getBytes(
        `${shardPath(shard)}/v1/log/entries/${index}`,
        "entry",
        "application/cose",
      );
      await verifyInput(bytes, `entry ${index}${shard ? ` of shard ${shard}` : ""}`);
    } else if (leaf !== null) {
      if (!/^[0-9a-f]{64}$/.test(leaf)) {
        renderUnusable(region, `leaf ${JSON.stringify(leaf)} is not 64 lowercase hex digits`);
        return;
      }
      // A sharded service (docs/SHARDS.md): the shard that holds the leaf, newest first (the
      // log panel then checks it against that shard's key from the signed directory).
      const sh = await findShard(leaf, undefined);
      const at = sh
        ? (sh.index === undefined ? undefined : { index: sh.index, base: sh.base })
        : { ...await getJson<{ index: number }>(`/v1/log/leaves/${leaf}`), base: "" };
      if (!at) throw new Error(`leaf ${leaf} is in none of the log's ${sh!.count} shards`);
      const bytes = await getBytes(
        `${at.base}/v1/log/entries/${at.index}`,
        "entry",
        "application/cose",
      );
      await verifyInput(bytes, `entry ${at.index}${sh ? ` of shard ${sh.shard.id}` : ""}`);
    } else if (url !== null) {
      await verifyInput(await getBytes(url, "page"), url);
    }
  } catch (e) {
    renderUnusable(region, (e as Error).message);
  }
}

function main(): void {
  wireInputs();
  wirePolicy();
  void showConfigStatus();
  const params = new URLSearchParams(location.search);
  byId("ready").textContent = "ready";
  if (params.get("view") === "explore") {
    byId("verify").hidden = true;
    void showExplorer(byId("explore")).then(() =>
      document.documentElement.setAttribute("data-ready", "true")
    );
    return;
  }
  const index = params.get("index");
  const shard = shardParam(params);
  if (index !== null && /^(0|[1-9][0-9]{0,15})$/.test(index) && shard !== null) {
    void showEntryViews(byId("explore"), index, params.get("rdf"), shard);
  } else byId("explore").hidden = true;
  void fromLink(params);
  document.documentElement.setAttribute("data-ready", "true");
}

main();
