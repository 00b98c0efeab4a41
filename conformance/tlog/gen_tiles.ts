// C-TLOG tile vectors (docs/PUBLICATION.md): for sizes around tile edges (1, 255, 256, 257,
// 65,535, 65,536, 65,537) and both views, the static log's checkpoint (signed by the fixed C-TLOG
// test key) and every tile and entry bundle. To keep the files small, the full level-0 tiles and
// full bundles of the sizes above 257 are given as the SHA-256 digest of their bytes (and their
// length); every other tile (partial tiles, all tiles of level 1 and above, everything at the
// small sizes) is given whole, in base64. Plus refused checkpoints (altered size, root, origin).
import { blake3Hasher, c2sp, sha256Hasher } from "../../log/mod.ts";
import { toHex } from "../../verify/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";

export const TILE_SIZES = [1, 255, 256, 257, 65_535, 65_536, 65_537];
export const TILE_LOG_NAME = "c-tlog.example/jouleclaw";
const WHOLE_UP_TO = 257;

/** The tiles.json document (without its vectors' JSON layout). */
export function generateTileVectors(
  secret: Uint8Array,
  entryOf: (i: number) => Uint8Array,
): Record<string, unknown> {
  const entries = Array.from({ length: Math.max(...TILE_SIZES) }, (_, i) => entryOf(i));
  const vectors: Record<string, unknown>[] = [];
  const hashers = { blake3: blake3Hasher, sha256: sha256Hasher };
  for (const size of TILE_SIZES) {
    const files = c2sp.staticLogFiles(hashers, {
      name: TILE_LOG_NAME,
      secret,
      entries: entries.slice(0, size),
    });
    for (const view of ["blake3", "sha256"] as const) {
      const prefix = `log/${view}/`;
      const tiles: Record<string, unknown> = {};
      for (const [path, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!path.startsWith(prefix) || path === `${prefix}checkpoint`) continue;
        const rel = path.slice(prefix.length);
        const t = c2sp.parseTilePath(rel);
        const digest = size > WHOLE_UP_TO && t.width === c2sp.TILE_WIDTH && t.level <= 0;
        tiles[rel] = digest
          ? { sha256: toHex(sha256(bytes)), length: bytes.length }
          : { base64: c2sp.toBase64(bytes) };
      }
      const note = new TextDecoder().decode(files.get(`${prefix}checkpoint`)!);
      vectors.push({
        name: `tiles-${view}-${size}`,
        view,
        size,
        checkpoint: note,
        tiles,
        want_err: false,
      });
    }
  }
  // Refused checkpoints: one line changed after signing, or signed under another origin.
  const base = new TextDecoder().decode(
    c2sp.staticLogFiles(hashers, { name: TILE_LOG_NAME, secret, entries: entries.slice(0, 257) })
      .get("log/sha256/checkpoint")!,
  );
  const [origin, size, root, ...rest] = base.split("\n");
  const refused: [string, string, string][] = [
    ["altered-size", [origin, "256", root, ...rest].join("\n"), "note-bad-signature"],
    [
      "altered-root",
      [origin, size, c2sp.toBase64(new Uint8Array(32)), ...rest].join("\n"),
      "note-bad-signature",
    ],
    [
      "other-origin",
      c2sp.signCheckpoint(
        {
          origin: `${TILE_LOG_NAME}/blake3`,
          size: 257,
          root: c2sp.parseCheckpoint(`${origin}\n${size}\n${root}\n`).root,
        },
        secret,
        { name: `${TILE_LOG_NAME}/sha256` },
      ),
      "checkpoint-wrong-origin",
    ],
    [
      "unsigned-by-log",
      c2sp.signCheckpoint(
        c2sp.parseCheckpoint(`${origin}\n${size}\n${root}\n`),
        new Uint8Array(32).fill(1),
      ),
      "note-unverified",
    ],
  ];
  for (const [name, checkpoint, code] of refused) {
    vectors.push({
      name: `checkpoint-refused-${name}`,
      view: "sha256",
      checkpoint,
      want_err: true,
      code,
    });
  }
  const pub = c2sp.parseVkey(c2sp.ed25519Vkey(`${TILE_LOG_NAME}/sha256`, secret)).publicKey;
  return {
    kind: "tlog-vectors/1",
    type: "tiles",
    spec:
      "C2SP tlog-tiles (height 8), tlog-checkpoint, signed-note (Ed25519); view blake3: SPEC §22.1 hashes, view sha256: RFC 6962",
    entry_rule: 'entry i = UTF-8 of "JouleClaw C-TLOG leaf <i>"; bundles hold entries 256·N ..',
    digest_rule:
      `tiles and bundles of sizes over ${WHOLE_UP_TO} that are full and of level 0 (or bundles) are given as {sha256, length} of their bytes; all others whole`,
    log_name: TILE_LOG_NAME,
    public_key: toHex(pub),
    vkeys: {
      blake3: c2sp.encodeVkey(`${TILE_LOG_NAME}/blake3`, c2sp.SIG_ED25519, pub),
      sha256: c2sp.encodeVkey(`${TILE_LOG_NAME}/sha256`, c2sp.SIG_ED25519, pub),
    },
    vectors,
  };
}
