// A real Virtuoso (Debian virtuoso-opensource-7-bin) for a test: its own temporary virtuoso.ini and
// database on free 127.0.0.1 ports, started with `virtuoso-t +foreground`, granted SPARQL updates
// (SPARQL_UPDATE to the anonymous "SPARQL" user, through isql-vt), stopped and removed afterwards
// (docs/TEST-SETUPS "Virtuoso"). Missing binaries fail loudly: .ci/run installs them.

/** A running Virtuoso. */
export interface Virtuoso {
  /** SPARQL query and update endpoint */
  sparql: string;
  /** Graph Store Protocol endpoint, `{graph}` templated (Virtuoso's graph-uri= parameter) */
  gsp: string;
  /** runs SQL through isql-vt */
  isql(sql: string): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const p = (l.addr as Deno.NetAddr).port;
  l.close();
  return p;
}

async function which(bin: string): Promise<void> {
  const r = await new Deno.Command("sh", { args: ["-c", `command -v ${bin}`] }).output();
  if (r.code !== 0) {
    throw new Error(
      `${bin} is not installed: apt-get install virtuoso-opensource-7-bin (.ci/run installs it)`,
    );
  }
}

/** Starts a fresh Virtuoso; `stop()` kills it and removes its files. */
export async function startVirtuoso(): Promise<Virtuoso> {
  await which("virtuoso-t");
  await which("isql-vt");
  const dir = await Deno.makeTempDir({ prefix: "jc-virtuoso-" });
  const sqlPort = freePort();
  const httpPort = freePort();
  await Deno.writeTextFile(
    `${dir}/virtuoso.ini`,
    `[Database]
DatabaseFile = ${dir}/db.db
ErrorLogFile = ${dir}/db.log
LockFile = ${dir}/db.lck
TransactionFile = ${dir}/db.trx
xa_persistent_file = ${dir}/db.pxa
[TempDatabase]
DatabaseFile = ${dir}/tmp.db
TransactionFile = ${dir}/tmp.trx
[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
DirsAllowed = ., /tmp
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerThreads = 6
MaxClientConnections = 6
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 120
`,
  );
  const child = new Deno.Command("virtuoso-t", {
    args: ["-c", `${dir}/virtuoso.ini`, "+foreground"],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const isql = async (sql: string) => {
    const r = await new Deno.Command("isql-vt", {
      args: [`127.0.0.1:${sqlPort}`, "dba", "dba", `exec=${sql}`],
      stdin: "null",
    }).output();
    const out = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
    if (r.code !== 0 || /\*\*\* Error/.test(out)) throw new Error(`isql-vt ${sql}: ${out}`);
    return out;
  };
  const sparql = `http://127.0.0.1:${httpPort}/sparql`;
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(`${sparql}?query=${encodeURIComponent("ASK {}")}`);
      await r.body?.cancel();
      if (r.ok) break;
    } catch { /* not yet */ }
    if (Date.now() - t0 > 60_000) {
      child.kill("SIGKILL");
      throw new Error(`Cannot start Virtuoso: ${await Deno.readTextFile(`${dir}/db.log`)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await isql('grant SPARQL_UPDATE to "SPARQL";');
  return {
    sparql,
    gsp: `http://127.0.0.1:${httpPort}/sparql-graph-crud?graph-uri={graph}`,
    isql,
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
