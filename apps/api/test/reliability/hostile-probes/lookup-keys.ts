/** Names of Object.prototype's members as route, asset and procedure names (group 1). */
import { invalid, notFound, type ProbeKit } from './kit.js';

const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];

export function prototypeNameProbes({ rest, trpcGet }: ProbeKit): void {
  // 1. Names of Object.prototype's members used as keys of a lookup table: /docs/assets/constructor was a 500.
  for (const name of PROTOTYPE_NAMES) {
    rest('prototype names', `docs asset ${name}`, 'GET', `/docs/assets/${name}`, notFound, undefined, {
      anonymous: true,
    });
  }
  rest('prototype names', 'docs asset %5F%5Fproto%5F%5F', 'GET', '/docs/assets/%5F%5Fproto%5F%5F', notFound);
  rest('prototype names', 'docs asset unknown.css', 'GET', '/docs/assets/unknown.css', notFound);
  rest('prototype names', 'docs asset swagger-ui.css (control)', 'GET', '/docs/assets/swagger-ui.css', {
    status: 200,
  });
  for (const path of [
    'pets.constructor',
    'pets.__proto__',
    'pets.toString',
    'constructor',
    '__proto__.list',
  ]) {
    trpcGet('prototype names', `tRPC procedure ${path}`, path, '{"json":{}}', notFound);
  }
  rest('prototype names', 'REST /v1/pets/constructor', 'GET', '/v1/pets/constructor', invalid);
  rest('prototype names', 'REST /v1/constructor', 'GET', '/v1/constructor', notFound);
  for (const key of ['constructor', 'toString', '__proto__']) {
    rest('prototype names', `REST query ?${key}=1`, 'GET', `/v1/pets?${key}=1`, invalid);
  }
  rest(
    'prototype names',
    'REST body field "constructor"',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"constructor":{"prototype":{"x":1}}}',
  );
  trpcGet(
    'prototype names',
    'tRPC batch input key "constructor"',
    'pets.list',
    '{"constructor":{"json":{}}}',
    invalid,
    {
      batch: true,
    },
  );
}
