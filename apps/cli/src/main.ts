#!/usr/bin/env node
/**
 * @packageDocumentation
 * The `interlock` bin. Everything is in {@link runCli}; this file only sets the exit code.
 */
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
