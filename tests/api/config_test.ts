// Configuration: defaults, file, environment precedence, and clear refusals (docs/CONFIG.md).
import assert from "node:assert/strict";
import { ConfigError, defaultConfig, ENV_KEYS, resolveConfig } from "../../api/services/config.ts";
import { configPathFromArgs, loadConfig } from "../../api/deno/config_load.ts";
import { verifierOptions } from "../../api/http/verifier_options.ts";

Deno.test("config: embedded defaults", () => {
  const c = resolveConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.dataDir, "./data");
  assert.equal(c.keyFile, "./data/log-key.hex");
  assert.equal(c.bodyLimit, 65536);
  assert.equal(c.appends, "open");
  assert.deepEqual(c.rate, defaultConfig().rate);
});

Deno.test("config: file then environment, environment wins", () => {
  const c = resolveConfig(
    { PORT: "9001", JC_RATE_WRITE: "10:20", JC_GATEWAY_KEYS: "gw-1=00ff,gw-2=abcd" },
    {
      port: 7000,
      data_dir: "/tmp/x",
      rate_read: { per_second: 5 },
      appends: "listed",
      stewards: ["did:key:zA"],
      reference_vectors: { ["aa".repeat(32)]: { joules_uj: 12 } },
    },
  );
  assert.equal(c.port, 9001);
  assert.equal(c.dataDir, "/tmp/x");
  assert.equal(c.keyFile, "/tmp/x/log-key.hex");
  assert.deepEqual(c.rate.read, { perSecond: 5, burst: 10 });
  assert.deepEqual(c.rate.write, { perSecond: 10, burst: 20 });
  assert.deepEqual(c.gatewayKeys, { "gw-1": "00ff", "gw-2": "abcd" });
  assert.deepEqual(c.referenceVectors, { ["aa".repeat(32)]: { joules_uj: 12 } });
  const opts = verifierOptions(c);
  assert.deepEqual(opts.referenceVectors, { ["aa".repeat(32)]: { joules_uj: 12n } });
  assert.deepEqual([...opts.gatewayKeys!["gw-1"]], [0, 255]);
  assert.deepEqual(c.stewards, ["did:key:zA"]);
});

Deno.test("config: every environment variable maps to a file key that parses", () => {
  for (const [env, key] of Object.entries(ENV_KEYS)) {
    assert.ok(typeof key === "string" && key.length > 0, env);
  }
  // "0" disables a rate limit.
  assert.equal(resolveConfig({ JC_RATE_READ: "0" }).rate.read.perSecond, 0);
});

Deno.test("config: bad values are refused with the key named", () => {
  const bad: [Record<string, string>, unknown, RegExp][] = [
    [{ PORT: "80a" }, undefined, /port/],
    [{ PORT: "70000" }, undefined, /port/],
    [{ JC_RATE_READ: "fast" }, undefined, /rate_read/],
    [{ JC_APPENDS: "some" }, undefined, /appends/],
    [{ JC_APPENDS: "listed" }, undefined, /stewards is empty/],
    [{ JC_GATEWAY_KEYS: "gw" }, undefined, /gateway_keys/],
    [{ JC_GATEWAY_KEYS: "gw=XYZ" }, undefined, /gateway_keys.gw/],
    [{}, { prot: 1 }, /"prot" is unknown/],
    [{}, [1], /JSON object/],
    [{}, { reference_vectors: [] }, /reference_vectors/],
    [{}, { body_limit: 10 }, /body_limit/],
  ];
  for (const [env, file, re] of bad) {
    assert.throws(() => resolveConfig(env, file), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /^Cannot load config: /);
      assert.match(e.message, re);
      return true;
    });
  }
});

Deno.test("config: loadConfig reads --config and the operator-config file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const h = "bb".repeat(32);
    await Deno.writeTextFile(
      `${dir}/op.json`,
      JSON.stringify({ reference_vectors: { [h]: { joules_uj: 7 } }, gateway_keys: { g: "01" } }),
    );
    await Deno.writeTextFile(
      `${dir}/c.json`,
      JSON.stringify({ port: 1234, operator_config: `${dir}/op.json`, gateway_keys: { g: "02" } }),
    );
    assert.equal(configPathFromArgs(["--config", "x"]), "x");
    assert.equal(configPathFromArgs(["--config=y"]), "y");
    const c = await loadConfig({}, ["--config", `${dir}/c.json`]);
    assert.equal(c.port, 1234);
    const opts = verifierOptions(c);
    assert.deepEqual(opts.referenceVectors, { [h]: { joules_uj: 7n } });
    assert.deepEqual([...opts.gatewayKeys!.g], [2], "inline keys override the file's");
    // verify/'s reader refuses a bad operator config, named as a config error
    await Deno.writeTextFile(`${dir}/op.json`, JSON.stringify({ reference_vectors: { x: 1 } }));
    const bad = await loadConfig({ JC_CONFIG: `${dir}/c.json` });
    assert.throws(() => verifierOptions(bad), /^ConfigError: Cannot load config: verifier options/);
    await Deno.writeTextFile(`${dir}/bad.json`, "{");
    await assert.rejects(loadConfig({ JC_CONFIG: `${dir}/bad.json` }), /is not JSON/);
    await assert.rejects(loadConfig({ JC_CONFIG: `${dir}/none.json` }), /cannot be read/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config: pin_dir places every pin (s0.pin unless pin_file is set); inside data_dir is refused", async () => {
  const c = await loadConfig({ DATA_DIR: "/srv/jc", JC_PIN_DIR: "/pins/" });
  assert.equal(c.pinDir, "/pins/");
  assert.equal(c.pinFile, "/pins/s0.pin");
  const explicit = await loadConfig({
    DATA_DIR: "/srv/jc",
    JC_PIN_DIR: "/pins",
    JC_PIN_FILE: "/secret/s0.pin",
  });
  assert.equal(explicit.pinFile, "/secret/s0.pin");
  assert.equal((await loadConfig({ DATA_DIR: "/srv/jc" })).pinDir, undefined);
  for (const inside of ["/srv/jc", "/srv/jc/pins"]) {
    await assert.rejects(
      loadConfig({ DATA_DIR: "/srv/jc", JC_PIN_DIR: inside }),
      /pin_dir .* is inside data_dir/,
    );
  }
});
