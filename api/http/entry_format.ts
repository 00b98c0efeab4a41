// The shape of one entry representation (api/http/entry_formats.ts holds the table; api/http/routes/rdf.ts
// adds the RDF rows). Types only, apart from both, so that neither imports the other's table.
import type { Context } from "hono";
import type { Verdict, VerificationReport } from "../../verify/mod.ts";
import type { AppEnv } from "./route.ts";
import type { RevocationStatus } from "../../log/mod.ts";

/** What a representation is produced from. */
export interface EntryView {
  index: number;
  leafHash: string;
  envelope: Uint8Array;
  /** The verification report of the envelope under the service's options (computed once). */
  report(): Promise<VerificationReport>;
  /**
   * The entry's verdict class (JCR-1 §6, SPEC §6): it passed steps 1-5 when appended, so step 6
   * under the reference vectors of the configuration it was judged under decides (verify/'s
   * loggedVerdict), in every view alike.
   */
  verdict(): Promise<Verdict | undefined>;
  /** Absolute URL of the entry. */
  url: string;
  /** Issue 25: a `jcp` allow's revocation status, given its core (api/http/revocation_status.ts). */
  revocation?: (core: unknown) => Promise<RevocationStatus | undefined>;
  /** The first signed head that covers the entry (issue 24), where the log keeps streams. */
  integrated?: () => Promise<{ size: number; timestamp: number } | undefined>;
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
