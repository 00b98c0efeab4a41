// Entry point of the bundled agent (`node meter-agent/dist/meter-agent.mjs ...`; Node >= 20).
import { main } from "./src/cli.ts";

main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
  console.error(`meter-agent: ${e instanceof Error ? e.stack ?? e.message : e}`);
  process.exit(1);
});
