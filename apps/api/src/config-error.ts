/**
 * A configuration the operator must fix: start-up prints its message alone (no stack) and exits 1. Its own module
 * so that db/ can throw it without importing config.ts, the composition root's (docs/development.md#layers).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The embedded database's directory is another process's (db/data-dir-lock.ts): the operator's to resolve, so one
 * line without a stack too. Its own class so that `pnpm keys` can say how to issue keys while the api runs.
 */
export class DataDirectoryInUse extends ConfigError {
  override name = 'DataDirectoryInUse';
}
