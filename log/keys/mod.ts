// Key-event chains (issue 25; docs/KEYS.md; JCP §2.1): the facts the log reads from an entry,
// the checks at append (run by the sequencer, written in the batch's commit) and their codes.
export * from "./facts.ts";
export { judgeBatch, judgeKeys, KeyRefusal } from "./judge.ts";
export type { KeyJudgement, KeyStateReads } from "./judge.ts";
export { checkKeyEvent, keyEventFact, keyEventFactOf, signedFact } from "./read.ts";
