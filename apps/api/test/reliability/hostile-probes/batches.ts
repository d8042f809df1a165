/** tRPC batches: the key checked once per request, at most 10 calls (groups 2 and 3). */
import { batchInput, batchPath, invalid, ok, type ProbeKit, trpcNewPet, unauthorized } from './kit.js';

export function unauthenticatedBatchProbes({ trpcGet, trpcPost }: ProbeKit): void {
  // 2. A batch without a key: 401 in one small error, the key checked once per HTTP request before any parsing.
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list, no key',
    batchPath('pets.list', 1_000),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list with inputs, no key',
    batchPath('pets.list', 1_000),
    batchInput(100, () => '{"json":{}}'),
    unauthorized,
    { anonymous: true, batch: true },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x pets.list, wrong key',
    batchPath('pets.list', 1_000),
    undefined,
    unauthorized,
    { batch: true, authorization: 'Bearer wrong-key-0123456789abcdef' },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 10 x pets.list, no key',
    batchPath('pets.list', 10),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,000 x unknown procedure, no key',
    batchPath('pets.nope', 1_000),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcGet(
    'unauthenticated batch',
    'GET 1,560 x pets.list (15.6 KB URL), no key',
    batchPath('pets.list', 1_560),
    undefined,
    unauthorized,
    {
      anonymous: true,
      batch: true,
    },
  );
  trpcPost(
    'unauthenticated batch',
    'POST 1,000 x pets.create, no key',
    `${batchPath('pets.create', 1_000)}`,
    batchInput(1_000, () => '{"json":{"name":"n","categoryId":1}}'),
    unauthorized,
    { anonymous: true, batch: true },
  );
  trpcPost(
    'unauthenticated batch',
    'POST pets.create as multipart, no key',
    'pets.create',
    '--x--',
    unauthorized,
    {
      anonymous: true,
      contentType: 'multipart/form-data; boundary=x',
    },
  );
}

export function batchSizeProbes({ trpcGet, trpcPost }: ProbeKit): void {
  // 3. Batch size: at most 10 calls, more is 400 validation_failed before any call runs (and nothing written).
  const createEnvelope = (index: number) => trpcNewPet(`batch pet ${index}`, String(index + 1));
  trpcPost(
    'batch size',
    'POST batch of 10 creates',
    batchPath('pets.create', 10),
    batchInput(10, createEnvelope),
    ok,
    {
      batch: true,
      success: { kind: 'batch', calls: 10 },
    },
  );
  trpcPost(
    'batch size',
    'POST batch of 11 creates',
    batchPath('pets.create', 11),
    batchInput(11, createEnvelope),
    invalid,
    {
      batch: true,
    },
  );
  const bigCreateBatch = batchInput(1_300, () => '{"json":{"name":"n","categoryId":1}}');
  trpcPost(
    'batch size',
    'POST batch of 1,300 creates (review: ~1,500)',
    batchPath('pets.create', 1_300),
    bigCreateBatch,
    invalid,
    {
      batch: true,
    },
  );
  trpcPost(
    'batch size',
    'POST batch of 1,400 creates: URL over 16 KiB',
    batchPath('pets.create', 1_400),
    '{}',
    { status: 431, code: 'headers_too_large', byNodeParser: true },
    { batch: true },
  );
  trpcGet(
    'batch size',
    'GET batch of 10 x pets.list',
    batchPath('pets.list', 10),
    batchInput(10, () => '{"json":{"limit":1}}'),
    ok,
    {
      batch: true,
      success: { kind: 'batch', calls: 10 },
    },
  );
  trpcGet('batch size', 'GET batch of 11 x pets.list', batchPath('pets.list', 11), undefined, invalid, {
    batch: true,
  });
  trpcGet(
    'batch size',
    'GET batch of 1,000 x pets.list with a key',
    batchPath('pets.list', 1_000),
    undefined,
    invalid,
    {
      batch: true,
    },
  );
  trpcGet(
    'batch size',
    'GET batch of 2 with an input for call 5',
    batchPath('pets.list', 2),
    '{"5":{"json":{}}}',
    invalid,
    { batch: true },
  );
  trpcGet('batch size', 'GET batch=1 of one call', 'pets.list', '{"0":{"json":{"limit":1}}}', ok, {
    batch: true,
    success: { kind: 'batch', calls: 1 },
  });
}
