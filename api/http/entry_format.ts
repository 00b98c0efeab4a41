// The shape of one entry representation (api/http/entry_formats.ts holds the table; api/http/routes/rdf.ts
// adds the RDF rows). Types only, apart from both, so that neither imports the other's table.
import type { Context } from "hono";
import type { VerificationReport } from "../../verify/mod.ts";
import type { AppEnv } from "./route.ts";

/** What a representation is produced from. */
export interface EntryView {
  index: number;
  leafHash: string;
  envelope: Uint8Array;
  /** The verification report of the envelope under the service's options (computed once). */
  report(): Promise<VerificationReport>;
  /** Absolute URL of the entry. */
  url: string;
  /**
   * Issue 23: the configuration the entry was judged under (the latest configuration entry
   * before it in its log, else in the shards before), with that entry's URL; undefined before
   * the first one.
   */
  judgedUnder(): Promise<
    { digest: string; index: number; shard?: string; url: string } | undefined
  >;
}

/** One row: a media type and its producer. */
export interface EntryFormat {
  mediaType: string;
  render(view: EntryView, c: Context<AppEnv>): Response | Promise<Response>;
}
