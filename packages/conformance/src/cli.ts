#!/usr/bin/env node
// The `petstore-conformance` command. Everything but the process wiring is in run-cli.ts, which tests call.
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
