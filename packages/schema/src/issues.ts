import type * as z from 'zod/mini';

/** Unknown keys named in a message; the rest are counted. */
const MAX_NAMED_KEYS = 5;

/**
 * One line a person can act on, from a zod error: `categoryId: must be an integer (int64); name: is required`.
 * `subject` names what was validated ("field" for a body, "query parameter" for a query string) and is used for
 * unknown keys: `unknown field "id"`.
 */
export function describeIssues(error: z.core.$ZodError, subject: string): string {
  const lines = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // A few by name: a body of 6,000 unknown keys must not get an answer twice its size.
      const named = issue.keys.slice(0, MAX_NAMED_KEYS).map((key) => JSON.stringify(key.slice(0, 100)));
      const more = issue.keys.length - named.length;
      return `unknown ${subject}${issue.keys.length > 1 ? 's' : ''} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    }
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  // One rule can fail two ways with the same message (1e21 is neither a safe integer nor <= 100): say it once.
  return [...new Set(lines)].join('; ');
}
