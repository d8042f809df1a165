/** How a body or input is labelled and wrapped: media types, a tRPC input's superjson envelope (groups 8 and 9). */
import { created, invalid, ok, type ProbeKit, unsupported } from './kit.js';

const newPet = '{"name":"media","categoryId":1}';

export function mediaTypeProbes({ rest, trpcPost }: ProbeKit): void {
  // 8. Media types: only application/json (or +json) in UTF-8, on both transports; the rest is 415.
  for (const contentType of [
    'application/json; charset=latin1',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'text/plain',
    'application/x-www-form-urlencoded',
    null,
  ]) {
    const label = contentType ?? 'no Content-Type';
    rest('media type', `REST ${label}`, 'POST', '/v1/pets', unsupported, newPet, { contentType });
    trpcPost('media type', `tRPC ${label}`, 'pets.create', `{"json":${newPet}}`, unsupported, {
      contentType,
    });
  }
  for (const contentType of [
    'application/json; charset=UTF-8',
    'APPLICATION/JSON',
    'application/json;charset="utf-8"',
    'application/merge-patch+json',
  ]) {
    rest('media type', `REST ${contentType} (accepted)`, 'POST', '/v1/pets', created, newPet, {
      contentType,
      success: { kind: 'pet', name: 'media' },
    });
    trpcPost('media type', `tRPC ${contentType} (accepted)`, 'pets.create', `{"json":${newPet}}`, ok, {
      contentType,
      success: { kind: 'pet', name: 'media' },
    });
  }
}

export function plainTrpcInputProbes({ trpcGet, trpcPost }: ProbeKit): void {
  // 9. A tRPC input must be a superjson envelope: a plain value is refused, never read as "no input".
  trpcGet('plain tRPC input', 'tRPC GET plain {"limit":101}', 'pets.list', '{"limit":101}', invalid);
  trpcGet('plain tRPC input', 'tRPC GET plain {"limit":5}', 'pets.list', '{"limit":5}', invalid);
  trpcGet(
    'plain tRPC input',
    'tRPC GET {"json":{"limit":101}}',
    'pets.list',
    '{"json":{"limit":101}}',
    invalid,
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET envelope with an extra key',
    'pets.list',
    '{"json":{"limit":5},"extra":1}',
    invalid,
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET meta with an extra key',
    'pets.list',
    '{"json":{"limit":5},"meta":{"x":1}}',
    invalid,
  );
  for (const input of ['[]', '"x"', 'null', '5']) {
    trpcGet('plain tRPC input', `tRPC GET input ${input}`, 'pets.list', input, invalid);
  }
  trpcPost('plain tRPC input', 'tRPC POST plain NewPet', 'pets.create', newPet, invalid);
  trpcGet(
    'plain tRPC input',
    'tRPC GET batch with a plain call',
    'pets.list,pets.list',
    '{"0":{"json":{}},"1":{"limit":101}}',
    invalid,
    {
      batch: true,
    },
  );
  trpcGet(
    'plain tRPC input',
    'tRPC GET {"json":{"limit":5}} (control)',
    'pets.list',
    '{"json":{"limit":5}}',
    ok,
    {
      success: { kind: 'pets' },
    },
  );
  trpcGet('plain tRPC input', 'tRPC GET no input (control)', 'pets.list', undefined, ok, {
    success: { kind: 'pets' },
  });
}
