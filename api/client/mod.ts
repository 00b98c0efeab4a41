// Public surface of api/client/: the checking HTTP client and the monitor (pure; the CLI in
// api/client/main.ts adds file I/O).
export { HttpError, LogClient, VerificationFailure } from "./client.ts";
export type { CheckedAppend, CheckedInclusion } from "./client.ts";
export { emptyState, MAX_REMEMBERED, parseState, poll } from "./monitor.ts";
export type { MonitorState, PollResult } from "./monitor.ts";
export {
  coreFromProjection,
  KEY_SCHEMES,
  keyFileText,
  keyScheme,
  parseKeyFile,
  sealCore,
  SealRefused,
} from "./seal.ts";
export type { KeyScheme, SigningAlg, SigningKey } from "./seal.ts";
