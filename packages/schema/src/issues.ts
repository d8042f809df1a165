import type { z } from 'zod';

/**
 * One line a person can act on, from a zod error: `categoryId: must be an integer (int64); name: is required`.
 * `subject` names what was validated ("field" for a body, "query parameter" for a query string) and is used for
 * unknown keys: `unknown field "id"`.
 */
export function describeIssues(error: z.ZodError, subject: string): string {
  const lines = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => JSON.stringify(key)).join(', ');
      return `unknown ${subject}${issue.keys.length > 1 ? 's' : ''} ${keys}`;
    }
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  // One rule can fail two ways with the same message (1e21 is neither a safe integer nor <= 100): say it once.
  return [...new Set(lines)].join('; ');
}
