/** getPet is deprecated (RFC 9745) and removed on 5 December 2030 (RFC 8594); listPets replaces it. */
export const GET_PET_DEPRECATION = {
  // @<unix seconds>: 2026-11-21, when this implementation first shipped getPet, already deprecated.
  deprecation: '@1795219200',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
} as const;

/** The headers every response of a deprecated operation carries. */
export const GET_PET_DEPRECATION_HEADERS = {
  Deprecation: GET_PET_DEPRECATION.deprecation,
  Sunset: GET_PET_DEPRECATION.sunset,
  Link: GET_PET_DEPRECATION.link,
};
