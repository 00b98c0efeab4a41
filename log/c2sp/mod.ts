// log/c2sp/: the C2SP formats of the static tiled publication (docs/PUBLICATION.md): signed notes,
// vkeys and cosignatures (signed-note, tlog-cosignature), checkpoints (tlog-checkpoint), tile and
// bundle paths and bundles (tlog-tiles, height 8), proofs from tiles, and tlog-proof. Pure: web
// APIs only, runs in Deno, Node 20, workerd and browsers.
export { fromBase64, toBase64 } from "./base64.ts";
export { C2spError } from "./errors.ts";
export {
  checkNoteText,
  cosignatureMessage,
  cosignatureSigner,
  cosignatureTimestamp,
  cosignatureVerifier,
  cosignatureVkey,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  ed25519Vkey,
  encodeVkey,
  formatNote,
  formatSignatureLine,
  isKeyName,
  keyIdOf,
  type Note,
  NOTE_LIMITS,
  type NoteLimits,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
  type OpenedNote,
  openNote,
  parseNote,
  parseSignatureLine,
  parseVkey,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  signNote,
  verifierFromVkey,
  type Vkey,
} from "./note.ts";
export {
  type Checkpoint,
  formatCheckpoint,
  MAX_CHECKPOINT_EXTENSIONS,
  openCheckpoint,
  type OpenedCheckpoint,
  parseCheckpoint,
  signCheckpoint,
} from "./checkpoint.ts";
export {
  ENTRIES,
  formatTileIndex,
  levelCount,
  MAX_LEVEL,
  newTiles,
  parseTilePath,
  partialTiles,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileId,
  tileLevels,
  tileOfSize,
  tilePath,
  tileWidthAt,
  tileWithin,
} from "./tile_path.ts";
export { encodeBundle, MAX_BUNDLE_BYTES, MAX_BUNDLE_ENTRY, parseBundle } from "./bundle.ts";
export {
  type SignedTree,
  type TileFetcher,
  TileHashReader,
  type TileHashReaderOptions,
  tileOfNode,
} from "./tile_proofs.ts";
export {
  formatTlogProof,
  MAX_EXTRA_BYTES,
  MAX_PROOF_HASHES,
  parseTlogProof,
  TLOG_PROOF_HEADER,
  type TlogProof,
  type TlogProofPolicy,
  type VerifiedTlogProof,
  verifyTlogProof,
} from "./tlog_proof.ts";
export {
  buildTileLevels,
  bundleBytes,
  fullTileHash,
  staticLogFiles,
  type StaticLogOptions,
  tileBytes,
  type TileLevels,
} from "./tile_build.ts";
// Witnessing (docs/WITNESS.md): tlog-policy, tlog-witness's add-checkpoint rules, the witness role
// and its state contract.
export {
  parsePolicy,
  POLICY_LIMITS,
  PolicyFileError,
  type PolicyGroup,
  type PolicyLog,
  type PolicyWitness,
  quorumMet,
  type TlogPolicy,
} from "./policy.ts";
export {
  openCheckpointWithPolicy,
  type PolicyCheckpoint,
  verifyTlogProofWithPolicy,
} from "./quorum.ts";
export {
  type AddCheckpointRequest,
  checkAdvance,
  formatAddCheckpoint,
  MAX_ADD_CHECKPOINT_BYTES,
  MAX_PROOF_LINES,
  parseAddCheckpoint,
  WITNESS_CODES,
  type WitnessCode,
  type WitnessedHead,
  WitnessRefusal,
} from "./witness.ts";
export {
  createWitness,
  type Witness,
  type WitnessedLog,
  type WitnessOptions,
} from "./witness_role.ts";
export {
  type CollectorRecord,
  type CosignedRecord,
  memoryWitnessState,
  type OriginHead,
  type WitnessStateStore,
} from "./witness_state.ts";
export {
  decideWitnessStart,
  type PinnedHead,
  pinnedWitnessState,
  type WitnessStart,
  WitnessStartError,
} from "./witness_pin.ts";
