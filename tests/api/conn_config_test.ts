// The listener's limits (api/deno/conn_config.ts, api/deno/conn_server.ts; issue 27): the cap stays below the
// descriptor limit, the settings parse, and this Deno has the per-connection HTTP server the
// listener is built on (docs/DECISIONS.md "Connections": a Deno without it serves with no limits).
import assert from "node:assert/strict";
import { AUTO_CONN_MAX, CONN_DEFAULTS, connLimits, fdReserve } from "../../api/deno/conn_config.ts";
import { serveOnConnection } from "../../api/deno/conn_server.ts";
import { ConfigError, resolveConfig } from "../../api/services/config.ts";

Deno.test("conn: this Deno has the runtime's per-connection HTTP server", () => {
  assert.equal(typeof serveOnConnection(), "function");
});

Deno.test("conn: the cap is below the descriptor limit", () => {
  assert.equal(connLimits(CONN_DEFAULTS, 256).max, 256 - fdReserve(256));
  assert.equal(connLimits(CONN_DEFAULTS, 1024).max, 1024 - 128);
  assert.equal(connLimits(CONN_DEFAULTS, 1 << 20).max, AUTO_CONN_MAX);
  assert.equal(connLimits(CONN_DEFAULTS, undefined).max, AUTO_CONN_MAX);
  assert.equal(connLimits({ ...CONN_DEFAULTS, connMax: 5000 }, 1024).max, 1024 - 128);
  assert.equal(connLimits({ ...CONN_DEFAULTS, connMax: 100 }, 1024).max, 100);
  assert.equal(connLimits(CONN_DEFAULTS, 20).max, 16, "at least 16");
});

Deno.test("conn: settings from the environment, malformed ones refused", () => {
  const c = resolveConfig({
    JC_CONN_MAX: "500",
    JC_CONN_HEADER_TIMEOUT_MS: "2000",
    JC_CONN_IDLE_TIMEOUT_MS: "3000",
    JC_CONN_REQUEST_TIMEOUT_MS: "60000",
    JC_BODY_MIN_RATE: "0",
  });
  assert.deepEqual(
    [c.connMax, c.connHeaderTimeoutMs, c.connIdleTimeoutMs, c.connRequestTimeoutMs, c.bodyMinRate],
    [500, 2000, 3000, 60000, 0],
  );
  assert.equal(resolveConfig({}).connMax, "auto");
  assert.throws(() => resolveConfig({ JC_CONN_MAX: "3" }), ConfigError);
  assert.throws(() => resolveConfig({ JC_CONN_IDLE_TIMEOUT_MS: "soon" }), ConfigError);
});
