// Accounts (issue 30; docs/ACCOUNTING.md): each logged receipt's account facts by JCP §8.1's
// reading rules, and the fold that adds them to per-grant accounts inside the store's commit.
export * from "./facts.ts";
export { accountFactsOf, type AccountReader, READERS, readJcp } from "./read_facts.ts";
export { type AccountEntry, type AccountTx, foldAccounts, type StoredHold } from "./fold.ts";
export { type AccountPage, type AccountQuery, type AccountRow, accountRow } from "./answer.ts";
