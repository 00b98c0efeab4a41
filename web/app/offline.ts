// verifier.html's script (issue 13): verifies a receipt with verify/ and its c2sp.org/tlog-proof@v1
// against a pasted log key (vkey), with no network at all: the checkpoint's signature, the
// inclusion of the receipt's leaf hash (in the view the checkpoint's origin names: `…/blake3` or
// `…/sha256`, PUBLICATION.md Decision P1) under the signed root.
/// <reference lib="dom" />
import { envelopeFromInput } from "../../verify/mod.ts";
import { verifyEnvelope } from "../../verify/mod.ts";
import { blake3Hasher, sha256Hasher } from "../../log/mod.ts";
import { parseTlogProof, parseVkey, verifyTlogProof } from "../../log/c2sp/mod.ts";
import { byId, el, replace } from "./dom.ts";
import { renderReport, renderUnusable } from "./report_view.ts";

async function fileOrText(fileId: string, textId: string): Promise<Uint8Array | undefined> {
  const f = byId<HTMLInputElement>(fileId).files?.[0];
  if (f) return new Uint8Array(await f.arrayBuffer());
  // Kept as typed: a note's text ends with its newline (signed-note), so it is never trimmed.
  const t = byId<HTMLTextAreaElement>(textId).value;
  return t.trim() ? new TextEncoder().encode(t) : undefined;
}

/** The view's tree hash, named by the checkpoint's origin. */
function hasherOf(origin: string) {
  if (origin.endsWith("/blake3")) return blake3Hasher;
  if (origin.endsWith("/sha256")) return sha256Hasher;
  throw new Error(`the origin ${origin} names neither the /blake3 nor the /sha256 view`);
}

async function checkProof(envelope: Uint8Array): Promise<void> {
  const panel = byId("log-panel");
  const body = byId("log-body");
  const proofBytes = await fileOrText("proof-file", "proof");
  panel.hidden = false;
  panel.removeAttribute("data-inclusion");
  if (!proofBytes) {
    panel.setAttribute("data-inclusion", "absent");
    replace(body, el("p", {}, "No tlog-proof given: only the receipt was checked."));
    return;
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(proofBytes);
    const trust = byId<HTMLTextAreaElement>("trust").value.trim();
    if (!trust) throw new Error("paste the log's key (vkey) to check the checkpoint's signature");
    const key = parseVkey(trust);
    const hasher = hasherOf(key.name);
    const p = parseTlogProof(text);
    const v = await verifyTlogProof(text, {
      hasher,
      leafHash: hasher.leaf(envelope),
      logKeys: [trust],
    });
    panel.setAttribute("data-inclusion", "verified");
    replace(
      body,
      el(
        "p",
        {},
        el("strong", {}, "✓ Logged"),
        ` at index ${v.index} of ${v.checkpoint.origin}: inclusion proof of ${p.proof.length} hashes verified against the checkpoint of size ${v.checkpoint.size}, signed by the log key.`,
      ),
      el("pre", {}, p.checkpoint),
    );
  } catch (e) {
    panel.setAttribute("data-inclusion", "failed");
    replace(body, el("p", {}, el("strong", {}, "✗ Not proven"), `: ${(e as Error).message}`));
  }
}

async function run(): Promise<void> {
  const region = byId("result");
  region.removeAttribute("data-verdict");
  const input = await fileOrText("file", "hex");
  if (!input) {
    renderUnusable(region, "Choose a receipt file or paste its hex first.");
    return;
  }
  let envelope: Uint8Array;
  try {
    envelope = envelopeFromInput(input);
  } catch (e) {
    renderUnusable(region, (e as Error).message);
    return;
  }
  renderReport(region, await verifyEnvelope(envelope));
  await checkProof(envelope);
}

byId("run").addEventListener("click", () => void run());
document.documentElement.setAttribute("data-ready", "true");
