import { describe, expect, it } from 'vitest';
import { statementSpanName } from './tracing.js';

describe('statementSpanName', () => {
  it('names a database span by the verb and the first table, as OpenTelemetry does', () => {
    expect(statementSpanName('SELECT id, name FROM pets WHERE id > $1 ORDER BY id LIMIT $2')).toBe(
      'SELECT pets',
    );
    expect(statementSpanName('INSERT INTO pets (name) VALUES ($1) RETURNING id')).toBe('INSERT pets');
    expect(
      statementSpanName(
        'INSERT INTO rate_limit_windows (subject) VALUES ($1) ON CONFLICT (subject) DO UPDATE SET count = 1',
      ),
    ).toBe('INSERT rate_limit_windows');
    expect(statementSpanName('  update "api_keys" set revoked_at = now()')).toBe('UPDATE api_keys');
    expect(statementSpanName('SELECT 1')).toBe('SELECT');
  });
});
