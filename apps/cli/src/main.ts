#!/usr/bin/env node
/**
 * @packageDocumentation
 * The `interlock` bin. Everything is in {@link runCli}; this file only sets the exit code.
 */
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node keeps the compiled bin in its compile cache (the system's temporary folder, unless
// NODE_COMPILE_CACHE names another; NODE_DISABLE_COMPILE_CACHE=1 turns it off): each command
// after the first starts without compiling the CLI again. (Node 22.0 has no compile cache.)
const { enableCompileCache } = module as Partial<typeof module>;
enableCompileCache?.();

// The shell rules parse with tree-sitter's WebAssembly grammar. V8 would also recompile it
// in the background with its optimizing tier: a command that is done stays alive about
// 0.75 s (far longer on a loaded machine) until that compile ends, and the compile's CPU
// counts against the classifier's per-command budget. A command's few short parses run as
// fast on the baseline tier alone. Set before the grammar is loaded.
setFlagsFromString('--liftoff-only');

// A reader that stops early (`interlock explain … | head`) closes the pipe: what is left to
// print has nowhere to go, which is no failure of the command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
const { runCli } = await import('./run-cli.js');

process.exitCode = await runCli(process.argv.slice(2));
