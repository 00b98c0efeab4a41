// Public surface of cli/: the shared argument parser and usage convention of every command line.
export * from "./args.ts";
