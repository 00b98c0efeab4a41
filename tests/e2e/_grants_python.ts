// Shared by the grant tests over real HTTP (issue 25): the independent Python implementation
// (conformance/python/jcgrants, written from JCP §3, §4, §4.1-§4.4, §8) run against a service.
import { ROOT } from "../../fixtures/service.ts";

/** What `python3 -m jcgrants URL` printed: its checks, the failed ones, and the ids it used. */
export interface JcgrantsRun {
  code: number;
  text: string;
  stderr: string;
}

/** Runs every jcgrants scenario against the service at `url`. */
export async function jcgrants(url: string): Promise<JcgrantsRun> {
  const out = await new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jcgrants", url],
    cwd: `${ROOT}conformance/python`,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
