// The witness role's default cosigner name (docs/WITNESS.md), shared by the Deno entry
// (api/witnessing.ts) and the Worker (api/worker.ts). Platform-neutral.

/** The default cosigner name: `<log name>/witness`. */
export function defaultWitnessName(logName: string): string {
  return `${logName}/witness`;
}
