#!/usr/bin/env node
// The `petstore-conformance` command. Everything but the process wiring is in run-cli.ts, which tests call.
// The Node check comes before anything else is loaded, so an older Node gets a sentence, not a stack trace.
const MINIMUM_NODE_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= MINIMUM_NODE_MAJOR)) {
  console.error(
    `petstore-conformance needs Node ${MINIMUM_NODE_MAJOR} or later; this is Node ${process.versions.node}. ` +
      'Run it on Node 24 without installing it: npx -y -p node@24 petstore-conformance <the same arguments>; ' +
      'or install a current Node (https://nodejs.org).',
  );
  process.exit(2);
}
const { runCli } = await import('./run-cli.js');

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
