// The witnessing settings of the service configuration (docs/CONFIG.md, docs/WITNESS.md): the
// witness role (`witness`: our own witness key, name, and the logs we cosign) and the collector
// (`witnesses`: who cosigns our checkpoints). Shape checks only, pure; the vkeys themselves are
// parsed where the witness and the collector are built (api/deno/witnessing.ts), which refuses a bad
// one at start.

/** One log this service witnesses. */
export interface WitnessedLogSetting {
  /** The log's vkey (Ed25519, type 0x01); its key name is the origin. */
  vkey: string;
  /** The log's tree hash: SHA-256 for any C2SP log, BLAKE3 for JouleClaw `…/blake3` origins. */
  hash: "sha256" | "blake3";
}

/** The witness role: `POST /add-checkpoint`. */
export interface WitnessRoleSetting {
  /** Our witness key (32-byte Ed25519 secret, hex); generated (0600) on first start; "" =
   * `<data_dir>/witness-key.hex`. */
  keyFile: string;
  /** Our cosigner name (the vkey's key name); "" = `<log name>/witness`. */
  name: string;
  logs: WitnessedLogSetting[];
}

/** One witness that cosigns our own checkpoints. */
export interface CollectorWitnessSetting {
  /** The witness's submission prefix; `<url>/add-checkpoint` is called. */
  url: string;
  /** The witness's cosignature vkey (type 0x04). */
  vkey: string;
}

function fail(key: string, why: string): never {
  // The same message shape as api/services/config.ts; ConfigError is thrown by the caller's wrapper.
  throw new Error(`Cannot load config: ${key} ${why}`);
}

function vkeyish(key: string, v: unknown): string {
  // name + hex8 key ID + base64 (which may itself hold '+'): signed-note "Verifier keys".
  if (typeof v !== "string" || !/^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/.test(v)) {
    fail(key, "must be a vkey");
  }
  return v;
}

function logSetting(key: string, v: unknown): WitnessedLogSetting {
  if (typeof v === "string") return { vkey: vkeyish(key, v), hash: "sha256" };
  if (!v || typeof v !== "object" || Array.isArray(v)) fail(key, "must be {vkey, hash}");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== "vkey" && k !== "hash") fail(`${key}.${k}`, "is unknown");
  }
  const hash = o.hash ?? "sha256";
  if (hash !== "sha256" && hash !== "blake3") fail(`${key}.hash`, `must be "sha256" or "blake3"`);
  return { vkey: vkeyish(`${key}.vkey`, o.vkey), hash };
}

/** `witness` (file) → the witness role. */
export function parseWitnessRole(v: unknown): WitnessRoleSetting {
  if (!v || typeof v !== "object" || Array.isArray(v)) fail("witness", "must be an object");
  const o = v as Record<string, unknown>;
  const out: WitnessRoleSetting = { keyFile: "", name: "", logs: [] };
  for (const [k, x] of Object.entries(o)) {
    if (k === "key_file") {
      if (typeof x !== "string" || !x) fail("witness.key_file", "must be a non-empty string");
      out.keyFile = x;
    } else if (k === "name") {
      if (typeof x !== "string" || !x || /[\s+]/.test(x)) {
        fail("witness.name", "must be a key name (no spaces, no '+')");
      }
      out.name = x;
    } else if (k === "logs") {
      if (!Array.isArray(x)) fail("witness.logs", "must be a list of {vkey, hash}");
      out.logs = x.map((l, i) => logSetting(`witness.logs[${i}]`, l));
    } else fail(`witness.${k}`, "is unknown (key_file, name, logs)");
  }
  return out;
}

/** `JC_WITNESS_LOGS`: comma-separated vkeys of SHA-256 logs. */
export function parseWitnessLogsEnv(v: string): WitnessedLogSetting[] {
  return v.split(",").map((s) => s.trim()).filter(Boolean).map((s, i) =>
    logSetting(`JC_WITNESS_LOGS[${i}]`, s)
  );
}

/** `witnesses` (file: list of {url, vkey}; env `JC_WITNESSES`: comma-separated "url vkey"). */
export function parseCollectorWitnesses(v: unknown): CollectorWitnessSetting[] {
  const list = typeof v === "string"
    ? v.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
      const [url, vkey, ...rest] = s.split(/\s+/);
      if (rest.length) fail("witnesses", `entry "${s}" is not "url vkey"`);
      return { url, vkey };
    })
    : v;
  if (!Array.isArray(list)) fail("witnesses", "must be a list of {url, vkey}");
  return list.map((w, i) => {
    const key = `witnesses[${i}]`;
    if (!w || typeof w !== "object") fail(key, "must be {url, vkey}");
    const o = w as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== "url" && k !== "vkey") fail(`${key}.${k}`, "is unknown");
    }
    let url: URL;
    try {
      url = new URL(String(o.url));
    } catch {
      fail(`${key}.url`, "must be an http(s) URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      fail(`${key}.url`, "must be an http(s) URL");
    }
    return { url: String(o.url).replace(/\/+$/, ""), vkey: vkeyish(`${key}.vkey`, o.vkey) };
  });
}
