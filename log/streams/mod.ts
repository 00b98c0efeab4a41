// Streams (issue 24; docs/STREAMS.md): the facts the log reads from an entry, the checks run at
// append inside the store's commit, and the search keys of the lookups.
export * from "./facts.ts";
export { checkStreams, cidKey, searchKey } from "./check.ts";
export type { CheckedEntry, StoredLink, StreamTx } from "./check.ts";
export { checkGrantFacts, MAX_GRANT_DEPTH } from "./grants.ts";
export { NOT_CHECKED } from "./revocation.ts";
export type { RevocationStatus, UnverifiableReason } from "./revocation.ts";
export type { GrantRecord, GrantRow, GrantTx } from "./grants.ts";
export type { StreamSummary } from "./summary.ts";
export {
  entryFacts,
  factsOfCore,
  jcpObjectFacts,
  LINK_MALFORMED,
  malformedLink,
  SEQ_RANGE,
} from "./read_facts.ts";
export type { CoreGet } from "./read_facts.ts";
export { findContent, findContentEntry, LogStreams } from "./reads.ts";
export { integrationTimes } from "./integration_times.ts";
export { answerStreamQuery, queriedStreamReads } from "./query.ts";
export type { GrantAnswer, Integration, SearchQuery, StreamQuery, StreamReads } from "./query.ts";
