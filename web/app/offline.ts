// verifier.html's script (issue 13): verifies a receipt with verify/ and its c2sp.org/tlog-proof@v1
// against a pasted log key or policy, with no network at all.
/// <reference lib="dom" />
import { envelopeFromInput } from "../../verify/cli.ts";
import { verifyEnvelope } from "../../verify/mod.ts";
import { byId } from "./dom.ts";
import { renderReport, renderUnusable } from "./report_view.ts";

async function inputBytes(): Promise<Uint8Array | undefined> {
  const f = byId<HTMLInputElement>("file").files?.[0];
  if (f) return new Uint8Array(await f.arrayBuffer());
  const hex = byId<HTMLTextAreaElement>("hex").value.trim();
  return hex ? new TextEncoder().encode(hex) : undefined;
}

async function run(): Promise<void> {
  const region = byId("result");
  const input = await inputBytes();
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
}

byId("run").addEventListener("click", () => void run());
document.documentElement.setAttribute("data-ready", "true");
