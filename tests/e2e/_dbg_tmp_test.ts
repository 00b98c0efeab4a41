import { LogClient } from "../../api/client/mod.ts";
import { steward, validEnvelope } from "../api/_fixtures.ts";
import { runClient, startService } from "./_service.ts";
import { httpPublication, viewStates } from "../log/_views.ts";
Deno.test({
  name: "dbg",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-dbg-" });
    const svc = await startService({ DATA_DIR: dataDir });
    const s = steward(3);
    let stop = false;
    let fails = 0;
    let acked = 0;
    const workers = Array.from({ length: 8 }, async (_, w) => {
      const client = new LogClient(svc.url, svc.signer);
      for (let n = 0; !stop; n++) {
        try {
          await client.submit(validEnvelope(w * 1_000_000 + n, s));
          acked++;
        } catch (e) {
          fails++;
          console.log(
            Date.now() % 100000,
            "submit failed",
            (e as Error).message,
            (e as { cause?: unknown }).cause,
          );
        }
      }
    });
    const MODE = Deno.env.get("DBG_MODE");
    for (let i = 0; i < 6; i++) {
      if (MODE !== "views") {
        const m = await runClient(["monitor", svc.url, "--state", `${dataDir}/m.json`, "--once"]);
        console.log(Date.now() % 100000, "cli", m.code, acked);
      }
      if (MODE !== "cli") {
        await viewStates(await httpPublication(svc.url));
        console.log(Date.now() % 100000, "views", acked);
      }
    }
    stop = true;
    await Promise.all(workers);
    console.log("fails", fails);
    await svc.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  },
});
