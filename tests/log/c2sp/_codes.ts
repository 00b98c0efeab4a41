// The stable code a C2SP refusal carries (log/c2sp/errors.ts), for the refusal-code tests.
import { c2sp } from "../../../log/mod.ts";

/** The code `f` throws or rejects with (a C2spError), or "ok" when it succeeds. */
export async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof c2sp.C2spError) return e.code;
    throw e;
  }
  return "ok";
}
