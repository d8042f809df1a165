// The one rule for what an API key may look like, shared by the configuration (API_KEYS) and the
// `Authorization: Bearer` parser, so that every key config accepts is one a client can actually present.

/**
 * The characters of a Bearer credential: a token68 (RFC 9110 section 11.2; RFC 6750's b64token), that is
 * letters, digits, `-._~+/`, optionally followed by `=` padding. A regular-expression fragment, no anchors.
 */
export const API_KEY_TOKEN = '[A-Za-z0-9\\-._~+/]+=*';

const API_KEY_MIN_LENGTH = 16;
const API_KEY_MAX_LENGTH = 256;

/** A whole key: a token68 long enough not to be guessed, and short enough for any header. */
export const API_KEY_PATTERN = new RegExp(
  `^(?=.{${API_KEY_MIN_LENGTH},${API_KEY_MAX_LENGTH}}$)${API_KEY_TOKEN}$`,
);

/** How a bad key is described to an operator (never with the key itself). */
export const API_KEY_RULE =
  `${API_KEY_MIN_LENGTH} to ${API_KEY_MAX_LENGTH} characters from A-Z a-z 0-9 - . _ ~ + / ` +
  '(optionally ending in = padding), as a Bearer token allows';
