// The C2SP formats' one error: malformed input with a stable `code` (STYLE.md, "three kinds of
// failure"). A signature or proof that does not verify is also reported with a code here, since a
// C2SP client must reject the whole note or proof (signed-note §Signatures) and say why.
import { CodedError } from "../../net/mod.ts";

/** Bad or unverifiable C2SP input (note, vkey, checkpoint, tile path, bundle, tile, tlog-proof). */
export class C2spError extends CodedError {
  /** `code`: stable machine-readable reason, listed in docs/PUBLICATION.md ("Codes"). */
  constructor(code: string, message: string) {
    super(code, message, "internal");
    this.name = "C2spError";
  }
}
