// Loading the configuration on Deno (docs/CONFIG.md): the optional JSON config file named by
// `--config PATH` or JC_CONFIG, the environment, and the operator-config file if one is named.
// Deno-only: the Worker entry builds its config from bindings with resolveConfig directly.
import { isAbsolute, relative } from "node:path";
import { resolveFromCaller } from "../../cli/mod.ts";
import { ConfigError, resolveConfig } from "../services/config.ts";
import type { ServiceConfig } from "../services/config.ts";

async function readJson(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new ConfigError(
      `Cannot load config: ${what} ${path} cannot be read (${(e as Error).message})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(
      `Cannot load config: ${what} ${path} is not JSON (${(e as Error).message})`,
    );
  }
}

/**
 * `pin_dir` must lie outside the data directory (issue 27): the pins are what tells an older
 * copy of the data directory from the latest, so they may not be lost or restored with it.
 */
function checkPinDir(pinDir: string, dataDir: string): string {
  const r = relative(dataDir, pinDir);
  if (r === "" || (!r.startsWith("..") && !isAbsolute(r))) {
    throw new ConfigError(
      `Cannot load config: pin_dir ${pinDir} is inside data_dir ${dataDir}; the pins must ` +
        "outlive the data directory (a durable directory of its own, docs/CONFIG.md)",
    );
  }
  return pinDir;
}

/** The value of `--config PATH` / `--config=PATH` in `args`, if any. */
export function configPathFromArgs(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--config") return args[i + 1];
    if (args[i].startsWith("--config=")) return args[i].slice("--config=".length);
  }
  return undefined;
}

/**
 * Resolves the service configuration from the environment and command-line arguments, reading
 * the config file and the operator-config file they name.
 */
export async function loadConfig(
  env: Record<string, string | undefined>,
  args: string[] = [],
): Promise<ServiceConfig> {
  // Relative paths are the caller's: `deno task` runs in the project root and says where the
  // caller was in INIT_CWD (cli/args.ts).
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  const path = configPathFromArgs(args) ?? env.JC_CONFIG;
  const file = path ? await readJson(at(path), "config file") : undefined;
  const config = resolveConfig(env, file);
  config.dataDir = at(config.dataDir);
  config.keyFile = at(config.keyFile);
  config.pinFile = at(config.pinFile);
  if (config.pinDir) config.pinDir = checkPinDir(at(config.pinDir), config.dataDir);
  config.operatorKeyFile = at(config.operatorKeyFile);
  if (config.operatorConfigFile) config.operatorConfigFile = at(config.operatorConfigFile);
  if (config.operatorConfigFile) {
    config.operatorConfig = await readJson(config.operatorConfigFile, "operator config");
  }
  return config;
}
