/**
 * `node --import tsx reap-run.ts <run id> <admin URL>`: cleans up after a test run that ended without its global
 * teardown (vitest exits at once on Ctrl-C, and its workers are SIGKILLed before their own cleanups finish).
 * Started detached by ./global-setup.ts as the run's main process exits; kills what is left of the run's
 * processes, removes its temp dirs, drops its databases, then exits. Quiet: nobody is left to read its output.
 */
const [runId, adminUrl] = process.argv.slice(2);
if (runId === undefined || adminUrl === undefined) throw new Error('usage: reap-run.ts <run id> <admin URL>');
// Before ./run-registry.js is loaded: it takes the run id from here, and does not claim the run as its owner.
process.env.PETSTORE_TEST_RUN_ID = runId;
const { sweepRunLeftovers } = await import('./run-registry.js');
const { dropRunDatabases } = await import('./test-database.js');
await sweepRunLeftovers().catch(() => {});
await dropRunDatabases(adminUrl).catch(() => {});
