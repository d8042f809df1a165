/**
 * The `Authorization` header of every call: `Bearer <apiKey>`, or none when `apiKey` is `null`, for an app whose
 * calls go through a proxy that adds the key itself (a browser app whose server holds the key, so that the key
 * never reaches the browser). Anything else is refused at once: the service refuses every call without a key.
 */
export function authorizationHeaders(apiKey: string | null): Record<string, string> {
  if (apiKey === null) return {};
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new TypeError(
      'apiKey is required: the service refuses every call without one (null: a proxy in front of it adds the key)',
    );
  }
  return { authorization: `Bearer ${apiKey}` };
}
