// The one argument parser and usage convention of every command line of the project (`verify`,
// `client …`, `fsck`, the meter agent, and any new command): a command declares its options once
// (CommandSpec) and gets, from that one declaration, the parser and the usage text.
//
//   --help / -h             → the usage on stdout, exit 0
//   an unknown option, a missing value, a wrong number of arguments
//                           → `<command>: <what is wrong>` and the usage on stderr, exit 2
//
// "--flag value" and "--flag=value" are the same; "--" ends the options. Pure (no Deno.*, no
// node:*), so the Node-bundled meter agent uses it too; `resolveFromCaller` takes the caller's
// directory from the environment the entry point passes in.
//
// Adopting it in a new command (see client/main.ts for a command with sub-commands):
//   const SPEC: CommandSpec = { name: "deno task backup", args: "DATA_DIR DEST", summary: "...",
//     positionals: [2, 2], options: [{ name: "key-file", value: "FILE", help: "..." }] };
//   Deno.exit(await runCommand(Deno.args, SPEC, async (a) => { ...; return 0; }));

/** One option of a command. */
export interface OptionSpec {
  /** Long name without dashes: "key-file" for --key-file. */
  name: string;
  /** One-letter alias without the dash ("q" for -q). */
  short?: string;
  /** Name of the value in the usage ("FILE"); absent for a boolean flag. */
  value?: string;
  /** Whether the option may be given more than once (its values are then collected). */
  repeat?: boolean;
  /** One line of help. */
  help: string;
}

/** A command's declaration: everything its parser and usage text are made of. */
export interface CommandSpec {
  /** How the command is invoked, e.g. "deno task client seal". */
  name: string;
  /** The positional arguments in the usage line, e.g. "CORE.json" or "<file | ->". */
  args?: string;
  /** One paragraph saying what the command does. */
  summary: string;
  options: OptionSpec[];
  /** [min, max] positional arguments; default [0, 0]. max may be Infinity. */
  positionals?: [number, number];
  /** Free text after the options (exit statuses, examples). */
  footer?: string;
}

/** What the parser found. */
export interface ParsedArgs {
  help: boolean;
  positional: string[];
  /** By long name: a string (value options), true (flags), or string[] (repeatable options). */
  options: Record<string, string | true | string[]>;
}

/** A usage error: the caller prints `message` and the usage on stderr, and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The exit status of a usage error, the same for every command. */
export const EXIT_USAGE = 2;

/** Wraps each paragraph (lines not starting with a space) of `text` at `width` columns. */
export function wrap(text: string, width = 98): string {
  return text.split("\n").map((line) => {
    if (line.startsWith(" ") || line.length <= width) return line;
    const out: string[] = [];
    let cur = "";
    for (const w of line.split(" ")) {
      if (cur && cur.length + 1 + w.length > width) {
        out.push(cur);
        cur = w;
      } else cur = cur ? `${cur} ${w}` : w;
    }
    return [...out, cur].join("\n");
  }).join("\n");
}

/** The usage text of a command (what --help prints). */
export function usageText(spec: CommandSpec): string {
  const lines = [`Usage: ${spec.name}${spec.args ? " " + spec.args : ""} [options]`, ""];
  lines.push(wrap(spec.summary.trim()), "");
  const opts: OptionSpec[] = [...spec.options, { name: "help", short: "h", help: "this text" }];
  const heads = opts.map((o) =>
    `${o.short ? `-${o.short}, ` : "    "}--${o.name}${o.value ? " " + o.value : ""}`
  );
  const width = Math.min(30, Math.max(...heads.map((h) => h.length)) + 2);
  lines.push("Options:");
  opts.forEach((o, i) => {
    const h = heads[i];
    const help = o.help + (o.repeat ? " (repeatable)" : "");
    lines.push(
      h.length < width ? `  ${h.padEnd(width)}${help}` : `  ${h}\n  ${" ".repeat(width)}${help}`,
    );
  });
  if (spec.footer) lines.push("", wrap(spec.footer.trim()));
  return lines.join("\n") + "\n";
}

/**
 * Parses `args` against `spec`. Throws UsageError on an unknown option, a missing value, a value
 * given to a flag, a repeated non-repeatable option, or a positional count outside the range.
 * When --help is present the rest is not checked (help wins).
 */
export function parseArgs(args: string[], spec: CommandSpec): ParsedArgs {
  const byLong = new Map(spec.options.map((o) => [o.name, o]));
  const byShort = new Map(spec.options.filter((o) => o.short).map((o) => [o.short!, o]));
  const out: ParsedArgs = { help: false, positional: [], options: {} };
  if (args.some((a) => a === "--help" || a === "-h")) {
    out.help = true;
    return out;
  }
  let onlyPositionals = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (onlyPositionals || a === "-" || !a.startsWith("-")) {
      out.positional.push(a);
      continue;
    }
    if (a === "--") {
      onlyPositionals = true;
      continue;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const key = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    const o = key.startsWith("--") ? byLong.get(key.slice(2)) : byShort.get(key.slice(1));
    if (!o) throw new UsageError(`unknown option ${key}`);
    let v: string | true;
    if (o.value) {
      if (inline !== undefined) v = inline;
      else if (i + 1 < args.length) v = args[++i];
      else throw new UsageError(`option --${o.name} needs a value (${o.value})`);
    } else {
      if (inline !== undefined) throw new UsageError(`option --${o.name} takes no value`);
      v = true;
    }
    const prev = out.options[o.name];
    if (o.repeat) {
      out.options[o.name] = [...(Array.isArray(prev) ? prev : []), v as string];
    } else if (prev !== undefined) {
      throw new UsageError(`option --${o.name} is given twice`);
    } else out.options[o.name] = v;
  }
  const [min, max] = spec.positionals ?? [0, 0];
  const n = out.positional.length;
  if (n < min || n > max) {
    const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    const noun = min === 1 && max <= 1 ? "argument" : "arguments";
    throw new UsageError(`expected ${want} ${noun}${spec.args ? ` (${spec.args})` : ""}, got ${n}`);
  }
  return out;
}

/** The string value of an option, or undefined (refuses a repeated form). */
export function str(p: ParsedArgs, name: string): string | undefined {
  const v = p.options[name];
  return typeof v === "string" ? v : undefined;
}

/** Whether a flag was given. */
export function flag(p: ParsedArgs, name: string): boolean {
  return p.options[name] === true;
}

/** The values of a repeatable option ([] when absent). */
export function list(p: ParsedArgs, name: string): string[] {
  const v = p.options[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** A number option at least `min`, or `fallback` when absent. */
export function num(p: ParsedArgs, name: string, fallback: number, min = 0): number {
  const v = str(p, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < min) {
    throw new UsageError(`option --${name} needs a number >= ${min}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** Where a command's output goes (injected so tests run commands in-process). */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

const consoleIo: CommandIo = {
  out: (t) => console.log(t.replace(/\n$/, "")),
  err: (t) => console.error(t.replace(/\n$/, "")),
};

/**
 * Runs a command: --help → usage on stdout, 0; a UsageError (from parsing or thrown by `body`) →
 * the message and the usage on stderr, 2; otherwise `body`'s status.
 */
export async function runCommand(
  args: string[],
  spec: CommandSpec,
  body: (p: ParsedArgs) => Promise<number> | number,
  io: CommandIo = consoleIo,
): Promise<number> {
  try {
    const p = parseArgs(args, spec);
    if (p.help) {
      io.out(usageText(spec));
      return 0;
    }
    return await body(p);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${spec.name}: ${e.message}\n\n${usageText(spec)}`);
      return EXIT_USAGE;
    }
    throw e;
  }
}

/**
 * For a command that goes on running after its arguments are read (a server): --help → the usage
 * on stdout, `{exit: 0}`; a usage error → the message and the usage on stderr, `{exit: 2}`
 * (runCommand's convention); otherwise `{parsed}`. The caller exits before doing anything else,
 * so `--help` or a typo creates nothing.
 */
export function parseOrExit(
  args: string[],
  spec: CommandSpec,
  io: CommandIo = consoleIo,
): { exit: number } | { parsed: ParsedArgs } {
  try {
    const parsed = parseArgs(args, spec);
    if (!parsed.help) return { parsed };
    io.out(usageText(spec));
    return { exit: 0 };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${spec.name}: ${e.message}\n\n${usageText(spec)}`);
    return { exit: EXIT_USAGE };
  }
}

/**
 * Resolves a file argument against the directory the user ran the command from. `deno task` runs
 * tasks in the project root and passes the caller's directory in INIT_CWD (npm does the same), so
 * entry points pass their environment: `resolveFromCaller(p, Deno.env.toObject(), Deno.cwd())`.
 */
export function resolveFromCaller(
  path: string,
  env: Record<string, string | undefined>,
  cwd: string,
): string {
  if (path === "-" || path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) return path;
  const base = (env.INIT_CWD || cwd).replace(/[\\/]+$/, "");
  const rel = path.replace(/^(\.\/)+/, "");
  return rel === "" || rel === "." ? base : `${base}/${rel}`;
}
