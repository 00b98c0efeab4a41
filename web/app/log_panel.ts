// The page's log panel (issue 13, "In the log?"). Trusts nothing the server says: the log key is
// pinned on first use (localStorage, shown with its fingerprint); the checkpoint must verify under
// the pinned key; the inclusion proof is computed here from tiles, each checked against the signed
// root (log/c2sp TileHashReader, the same code as the CLI and the service); the checkpoint must be
// consistent with the one this browser saw last for that key (a consistency proof from tiles); the
// witnesses' cosignatures are counted against a policy. A different key, a smaller tree or an
// inconsistent checkpoint is a security warning that shows both signed statements and offers them
// for download. Hooks: `data-inclusion="verified|absent|failed"`,
// `data-consistency="verified|first-seen|failed"`, `data-quorum="met|not-met|none"`. A sharded
// service (docs/SHARDS.md; web/app/shards.ts): the shard holding the receipt is checked, its key
// from the signed directory (`data-shard="sN"`); an operator key other than the pinned one is a
// security warning.
/// <reference lib="dom" />
import { blake3Hasher, sha256Hasher, verifyConsistency, verifyInclusion } from "../../log/mod.ts";
import {
  ed25519NoteVerifier,
  openCheckpoint,
  type OpenedCheckpoint,
  parseVkey,
  TileHashReader,
  type TileId,
  tilePath,
} from "../../log/c2sp/mod.ts";
import { fromHex, toHex } from "../../verify/mod.ts";
import { type Child, download, el, replace } from "./dom.ts";
import { fingerprint } from "./report_view.ts";
import { getBytes, getJson } from "./net.ts";
import { policyVerdict, type PolicyView } from "./policy.ts";
import { findShard, OperatorKeyChanged, type ShardFound } from "./shards.ts";

/** The view the page checks: the JouleClaw (BLAKE3) view, whose leaf hash the report shows. */
export const VIEW = "blake3";

const PIN_KEY = "jc.log-key";
const CP_KEY = (vkey: string) => `jc.checkpoint.${vkey}`;

interface KeyDoc {
  signer: string;
  public_key: string;
  vkeys?: { blake3?: string; sha256?: string };
}

/** A security warning: what differs, and both signed statements. */
interface Warning {
  title: string;
  explanation: string;
  before: string;
  now: string;
}

function warningBlock(w: Warning): HTMLElement {
  const dl = el(
    "button",
    { type: "button", "data-action": "download-evidence" },
    "Download both statements",
  );
  dl.addEventListener("click", () =>
    download(
      "jouleclaw-log-evidence.txt",
      `# ${w.title}\n# ${w.explanation}\n\n## seen before\n${w.before}\n\n## served now\n${w.now}\n`,
    ));
  return el(
    "div",
    { class: "warning", role: "alert", "data-warning": "true" },
    el("h3", {}, "⚠ Security warning: ", w.title),
    el("p", {}, w.explanation),
    el("h4", {}, "Seen before by this browser"),
    el("pre", { "data-evidence": "before" }, w.before),
    el("h4", {}, "Served now"),
    el("pre", { "data-evidence": "now" }, w.now),
    dl,
  );
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage disabled: every visit is a first visit
  }
}

/** The log key, pinned on first use; a different key served later is a warning. */
async function pinnedKey(lines: Child[]): Promise<{ vkey: string; warning?: Warning }> {
  const doc = await getJson<KeyDoc>("/v1/log/key", "json");
  const served = doc.vkeys?.[VIEW];
  if (!served) throw new Error("the log publishes no vkey for its BLAKE3 view");
  const key = parseVkey(served);
  const fp = fingerprint(key.publicKey);
  const st = storage();
  const pinned = st?.getItem(PIN_KEY);
  if (!pinned) {
    st?.setItem(PIN_KEY, served);
    lines.push(
      el(
        "p",
        { "data-field": "key-pin" },
        "Log key pinned on first use: ",
        el("code", { class: "wrap" }, served),
        " (fingerprint ",
        el("code", {}, fp),
        ").",
      ),
    );
    return { vkey: served };
  }
  if (pinned !== served) {
    lines.push(
      el(
        "p",
        {},
        "Checking against the key pinned earlier: ",
        el("code", { class: "wrap" }, pinned),
      ),
    );
    return {
      vkey: pinned,
      warning: {
        title: "the log's key changed",
        explanation:
          "This browser pinned another key for this log. A log does not change its key; " +
          "if the operator did not announce a new log, someone may be impersonating it.",
        before: pinned,
        now: served,
      },
    };
  }
  lines.push(
    el("p", { "data-field": "key-pin" }, "Log key (pinned): fingerprint ", el("code", {}, fp), "."),
  );
  return { vkey: pinned };
}

function fetchTile(base: string) {
  return (t: TileId) => getBytes(`${base}/${tilePath(t)}`, t.level < 0 ? "bundle" : "tile");
}

/** Consistency of `now` with the checkpoint this browser saw last for the same key. */
async function consistency(
  vkey: string,
  now: OpenedCheckpoint,
  noteNow: string,
  reader: TileHashReader,
): Promise<{ state: "verified" | "first-seen" | "failed"; warning?: Warning; line: string }> {
  const st = storage();
  const prevNote = st?.getItem(CP_KEY(vkey));
  const remember = () => st?.setItem(CP_KEY(vkey), noteNow);
  if (!prevNote) {
    remember();
    return {
      state: "first-seen",
      line: `First checkpoint this browser sees for this log (size ${now.checkpoint.size}).`,
    };
  }
  let prev: OpenedCheckpoint;
  try {
    prev = await openCheckpoint(prevNote, vkey);
  } catch {
    remember(); // what was stored no longer opens under this key: start afresh
    return {
      state: "first-seen",
      line: "The checkpoint stored earlier does not open under this key; starting afresh.",
    };
  }
  const a = prev.checkpoint, b = now.checkpoint;
  const inconsistent = (title: string, explanation: string) => ({
    state: "failed" as const,
    line: title,
    warning: { title, explanation, before: prevNote, now: noteNow },
  });
  if (b.size < a.size) {
    return inconsistent(
      "the log's tree got smaller",
      `This browser saw size ${a.size}; the log now serves size ${b.size}. An append-only log never shrinks.`,
    );
  }
  if (b.size === a.size) {
    if (toHex(a.root) !== toHex(b.root)) {
      return inconsistent(
        "two different trees at one size",
        `Both checkpoints are signed by the log key for size ${a.size} but name different roots: the log showed different histories.`,
      );
    }
    return { state: "verified", line: `Same checkpoint as seen before (size ${b.size}).` };
  }
  let ok = false;
  if (a.size === 0) ok = true;
  else {
    try {
      const proof = await reader.consistencyProof(a.size);
      ok = verifyConsistency(blake3Hasher, a.size, b.size, proof, a.root, b.root);
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    return inconsistent(
      "the new checkpoint is not consistent with the one seen before",
      `No valid consistency proof from size ${a.size} to ${b.size}: the log rewrote history.`,
    );
  }
  remember();
  return {
    state: "verified",
    line: `Consistent with the checkpoint seen before (size ${a.size} → ${b.size}).`,
  };
}

/**
 * The SHA-256 view (PUBLICATION.md Decision P3): its checkpoint must be signed by the same log key
 * (under the `…/sha256` origin), meet the policy's quorum, and include the envelope's SHA-256 leaf
 * at the same index.
 */
async function witnessedView(
  envelope: Uint8Array,
  index: number,
  pinnedVkey: string,
  policy: PolicyView | undefined,
  prefix = "",
): Promise<{ quorum: "met" | "not-met" | "none"; included: boolean; lines: Child[] }> {
  const lines: Child[] = [];
  const pinned = parseVkey(pinnedVkey);
  const origin = pinned.name.replace(/\/blake3$/, "/sha256");
  const note = new TextDecoder("utf-8", { fatal: true }).decode(
    await getBytes(`${prefix}/log/sha256/checkpoint`, "checkpoint"),
  );
  let opened: OpenedCheckpoint;
  try {
    opened = await openCheckpoint(note, ed25519NoteVerifier(origin, pinned.publicKey));
  } catch (e) {
    lines.push(el("p", {}, `The SHA-256 checkpoint does not verify: ${(e as Error).message}`));
    return { quorum: "not-met", included: false, lines };
  }
  const q = await policyVerdict(policy, note);
  lines.push(el("p", { "data-field": "quorum" }, q.line));
  const cp = opened.checkpoint;
  let included = false;
  if (index < cp.size) {
    try {
      const reader = new TileHashReader(sha256Hasher, cp, fetchTile(`${prefix}/log/sha256`));
      const proof = await reader.inclusionProof(index);
      included = verifyInclusion(
        sha256Hasher,
        index,
        cp.size,
        sha256Hasher.leaf(envelope),
        proof,
        cp.root,
      );
    } catch {
      included = false;
    }
  }
  lines.push(
    el(
      "p",
      { "data-field": "witnessed-inclusion" },
      included
        ? `Also proven in the witnessed SHA-256 view (size ${cp.size}) at index ${index}.`
        : `Not proven in the witnessed SHA-256 view (size ${cp.size}) at index ${index}.`,
    ),
  );
  return { quorum: q.state, included, lines };
}

/** The line naming the shard and how its key is known. */
function shardLine(sh: ShardFound): HTMLElement {
  return el(
    "p",
    { "data-field": "shard" },
    `Shard ${sh.shard.id} (${sh.shard.state}) of ${sh.count}, its key from the directory signed ` +
      `by the operator key ${sh.firstUse ? "pinned on first use" : "pinned"}: `,
    el("code", { class: "wrap" }, sh.operatorVkey),
    ".",
  );
}

/** The operator key changed since this browser pinned it. */
function operatorWarning(e: OperatorKeyChanged): Warning {
  return {
    title: "the log operator's key changed",
    explanation: "This browser pinned another operator key for this log's shard directory. An " +
      "operator does not change its key; nothing was checked against the new one.",
    before: e.before,
    now: e.now,
  };
}

/** Looks a verified envelope up in the log and checks everything the log says about it. */
export async function checkInLog(
  envelope: Uint8Array,
  leafHash: string,
  policy: PolicyView | undefined,
): Promise<void> {
  const panel = document.getElementById("log-panel")!;
  const body = document.getElementById("log-body")!;
  panel.hidden = false;
  for (const a of ["data-inclusion", "data-consistency", "data-quorum"]) panel.removeAttribute(a);
  replace(body, el("p", { class: "status-line" }, "Checking the log…"));
  const lines: Child[] = [];
  const warnings: Warning[] = [];
  panel.removeAttribute("data-shard");
  try {
    // A sharded service (docs/SHARDS.md): the shard holding the receipt, its key from the signed
    // directory; without a directory (404), the one log at the root, its key pinned as before.
    const sh = await findShard(leafHash, storage());
    const prefix = sh?.base ?? "";
    const base = `${prefix}/log/${VIEW}`;
    const pin: { vkey: string; warning?: Warning } = sh
      ? { vkey: sh.shard.vkeys.blake3 }
      : await pinnedKey(lines);
    if (sh) {
      panel.setAttribute("data-shard", sh.shard.id);
      lines.push(shardLine(sh));
    }
    if (pin.warning) warnings.push(pin.warning);
    const note = new TextDecoder("utf-8", { fatal: true }).decode(
      await getBytes(`${base}/checkpoint`, "checkpoint"),
    );
    let opened: OpenedCheckpoint;
    try {
      opened = await openCheckpoint(note, pin.vkey);
    } catch (e) {
      panel.setAttribute("data-inclusion", "failed");
      panel.setAttribute("data-consistency", "failed");
      lines.push(
        el("p", {}, `The checkpoint does not verify under the log key: ${(e as Error).message}`),
      );
      return;
    }
    const cp = opened.checkpoint;
    lines.push(
      el(
        "p",
        {},
        `Checkpoint verified: size ${cp.size}, root `,
        el("code", { class: "wrap" }, toHex(cp.root)),
        ".",
      ),
    );
    const reader = new TileHashReader(
      blake3Hasher,
      { size: cp.size, root: cp.root },
      fetchTile(base),
    );
    const c = await consistency(pin.vkey, opened, note, reader);
    panel.setAttribute("data-consistency", c.state);
    lines.push(el("p", { "data-field": "consistency" }, c.line));
    if (c.warning) warnings.push(c.warning);

    // The index comes from the server; the proof below is what makes it true.
    const found = sh
      ? (sh.index === undefined ? undefined : { index: sh.index })
      : await getJson<{ index: number }>(`/v1/log/leaves/${leafHash}`, "json").catch(() =>
        undefined
      );
    if (!found) {
      panel.setAttribute("data-inclusion", "absent");
      lines.push(el("p", {}, "This receipt is not in this log."));
      return;
    }
    if (!Number.isSafeInteger(found.index) || found.index < 0 || found.index >= cp.size) {
      panel.setAttribute("data-inclusion", "failed");
      lines.push(
        el("p", {}, `The log names index ${found.index}, outside its signed tree of ${cp.size}.`),
      );
      return;
    }
    try {
      const proof = await reader.inclusionProof(found.index);
      const ok = verifyInclusion(
        blake3Hasher,
        found.index,
        cp.size,
        fromHex(leafHash),
        proof,
        cp.root,
      );
      // The witnessed view: the same entry at the same index under the SHA-256 checkpoint that
      // witnesses cosign, and the policy's quorum on it.
      const w = ok
        ? await witnessedView(envelope, found.index, pin.vkey, policy, prefix)
        : undefined;
      if (w) {
        panel.setAttribute("data-quorum", w.quorum);
        lines.push(...w.lines);
      }
      panel.setAttribute("data-inclusion", ok && w?.included ? "verified" : "failed");
      lines.push(
        ok
          ? el(
            "p",
            {},
            el("strong", {}, "✓ Logged"),
            ` at index ${found.index}: inclusion proof of ${proof.length} hash${
              proof.length === 1 ? "" : "es"
            } verified against the signed checkpoint. `,
            el(
              "a",
              {
                href: sh && sh.shard.id !== "s0"
                  ? `/?index=${found.index}&shard=${sh.shard.id}`
                  : `/?index=${found.index}`,
              },
              sh && sh.shard.id !== "s0"
                ? `Link to this entry (shard ${sh.shard.id})`
                : "Link to this entry",
            ),
          )
          : el(
            "p",
            {},
            el("strong", {}, "✗ Not proven"),
            `: the inclusion proof for index ${found.index} does not lead to the signed root.`,
          ),
      );
    } catch (e) {
      panel.setAttribute("data-inclusion", "failed");
      lines.push(el("p", {}, el("strong", {}, "✗ Not proven"), `: ${(e as Error).message}`));
    }
  } catch (e) {
    if (e instanceof OperatorKeyChanged) warnings.push(operatorWarning(e));
    if (!panel.hasAttribute("data-inclusion")) panel.setAttribute("data-inclusion", "failed");
    lines.push(el("p", {}, `Cannot check the log: ${(e as Error).message}`));
  } finally {
    replace(body, ...warnings.map(warningBlock), ...lines);
  }
}
