// The witness role's default cosigner name (docs/WITNESS.md), shared by the Deno entry
// (api/deno/witnessing.ts) and the Worker (edge/worker/worker.ts). Platform-neutral.

/** The default cosigner name: `<log name>/witness`. */
export function defaultWitnessName(logName: string): string {
  return `${logName}/witness`;
}
