// log/shards/: a log as a sequence of shards (docs/SHARDS.md): the signed directory's format, its
// rules and the succession a monitor checks. Pure: web APIs only.
export {
  activeShard,
  checkDirectory,
  type Directory,
  DIRECTORY_HEADER,
  DirectoryError,
  directorySuccession,
  formatDirectory,
  MAX_DIRECTORY_BYTES,
  MAX_SHARDS,
  openDirectory,
  operatorVkey,
  type ShardEntry,
  shardId,
  shardLogName,
  shardPrefix,
  type ShardState,
  shardUrl,
  signDirectory,
} from "./directory.ts";
