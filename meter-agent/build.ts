// `deno task agent:build`: bundles the agent into one ES module that plain Node (>= 20) runs with no
// install step — meter-agent/dist/meter-agent.mjs — and puts koffi (the NVML FFI module, 2.x) beside
// it as dist/node_modules/koffi with the prebuilt native modules for Linux x64 and arm64 (Jetson),
// where the bundle's lazy `createRequire(import.meta.url)("koffi")` finds it.
//
// koffi is fetched only here, never by the service: it is pinned by meter-agent/koffi/deno.json
// (and its deno.lock), installed into meter-agent/koffi/node_modules on the first build. Its
// install script is declined there (`allowScripts.deny`): the package ships the prebuilt modules
// copied below, and the script would only rebuild them.

import { fileURLToPath as fromFileUrl } from "node:url";

const here = (p: string) => fromFileUrl(new URL(p, import.meta.url));
const KOFFI_PLATFORMS = ["linux_x64", "linux_arm64"];

/** Builds the bundle (and koffi beside it) into `outDir`; returns the bundle's path. */
export async function buildAgent(outDir = here("./dist/")): Promise<string> {
  await Deno.mkdir(outDir, { recursive: true });
  const out = `${outDir.replace(/\/$/, "")}/meter-agent.mjs`;
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--format",
      "esm",
      "--external",
      "koffi",
      "-o",
      out,
      here("./main.ts"),
    ],
    cwd: here("../"),
    stdout: "inherit",
    stderr: "inherit",
  });
  const { code } = await cmd.output();
  if (code !== 0) throw new Error(`Cannot bundle the agent: deno bundle exited ${code}`);
  // Node runs the bundle; the shebang lets it be run directly too.
  const text = await Deno.readTextFile(out);
  if (!text.startsWith("#!")) await Deno.writeTextFile(out, `#!/usr/bin/env node\n${text}`);
  await copyKoffi(`${outDir.replace(/\/$/, "")}/node_modules/koffi`);
  return out;
}

/** Installs the pinned koffi into meter-agent/koffi/node_modules (a no-op once there). */
async function installKoffi(): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--quiet", "--frozen"],
    cwd: here("./koffi/"),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `Cannot install koffi (meter-agent/koffi/deno.json): ${new TextDecoder().decode(stderr)}`,
    );
  }
}

async function copyKoffi(dest: string): Promise<void> {
  await installKoffi();
  const src = here("./koffi/node_modules/koffi");
  const real = await Deno.realPath(src).catch(() => {
    throw new Error(`Cannot copy koffi: ${src} is missing after deno install`);
  });
  await Deno.remove(dest, { recursive: true }).catch(() => {});
  for (const f of ["package.json", "index.js", "indirect.js", "LICENSE.txt"]) {
    await Deno.mkdir(dest, { recursive: true });
    await Deno.copyFile(`${real}/${f}`, `${dest}/${f}`);
  }
  for (const p of KOFFI_PLATFORMS) {
    await Deno.mkdir(`${dest}/build/koffi/${p}`, { recursive: true });
    await Deno.copyFile(
      `${real}/build/koffi/${p}/koffi.node`,
      `${dest}/build/koffi/${p}/koffi.node`,
    );
  }
}

if (import.meta.main) {
  const out = await buildAgent(Deno.args[0]);
  console.log(`meter-agent: bundle written to ${out}`);
}
