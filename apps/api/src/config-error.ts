/**
 * A configuration the operator must fix: start-up prints its message alone (no stack) and exits 1. Its own module
 * so that db/ can throw it without importing config.ts, the composition root's (docs/development.md#layers).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
