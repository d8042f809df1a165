// Requests every reference server must refuse with 400: the raw reference's rules (reference-rules.test.ts) and
// the naive and Fastify servers' tests run them all, so no reference is faster for checking less.
export const BAD_LIST_QUERIES = [
  'limit=0',
  'limit=101',
  'limit=1.5',
  'limit=1e1',
  'limit=',
  'limit=1&limit=2',
  'offset=2',
  'status=Available',
];

export const BAD_PET_IDS = ['0', '-1', 'abc', '1.5', '9223372036854775808'];

export const BAD_NEW_PETS = [
  '{"name":"","categoryId":1}',
  '{"name":"   ","categoryId":1}',
  '{"name":"a\\u0000","categoryId":1}',
  '{"name":"\\ud800","categoryId":1}',
  '{"name":"Rex","categoryId":1,"status":null}',
  '{"name":"Rex","categoryId":"1"}',
  '{"name":"Rex","categoryId":1,"id":3}',
  '{"name":"Rex","categoryId":9223372036854775808}',
  '{"name":"Rex","categoryId":1.5}',
  '[]',
  '{bad',
];
