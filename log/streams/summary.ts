/** A steward's stream, as GET /v1/streams lists it (issue 24). */
export interface StreamSummary {
  /** The stream's key under its steward (docs/STREAMS.md "Stream keys"). */
  key: string;
  /** Links logged (forks counted). */
  length: number;
  /** The largest seq logged. */
  last_seq: number;
  first_index: number;
  last_index: number;
}
