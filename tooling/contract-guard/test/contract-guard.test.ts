// Proof of the guard: deliberate changes applied to a copy of the contract (the schema package's sources, and the
// client's where the change is the client's), each compared with the committed release baseline and judged.
// Only what a change adds to the findings of an unchanged copy counts, so compatible changes merged since the
// release do not disturb the verdicts.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StabilityLevel } from '@petstore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUARD_DIR, latestBaselineDir, PACKAGE_DIRS, ROOT } from '../src/baseline.js';
import { describeContract, documentJson, type SchemaModule } from '../src/describe-contract.js';
import type { Finding } from '../src/finding.js';
import {
  type Bump,
  changelogText,
  compareContract,
  judge,
  neededBumps,
  type Pending,
  pendingChangesets,
} from '../src/gate.js';

const CASES_DIR = path.join(GUARD_DIR, '.cases');
const baseline = latestBaselineDir() as string;
const TODAY = '2026-11-23';

interface Edit {
  pkg: 'schema' | 'client';
  file: string;
  from: string | RegExp;
  to: string;
}

interface Case {
  name: string;
  edits: Edit[];
  /** Every new finding must be of these kinds, and each phrase must appear in one of them (`kind audience: where: what`). */
  verdict: 'break' | 'refused' | 'compatible';
  expect: string[];
}

const schema = (file: string, from: string | RegExp, to: string): Edit => ({ pkg: 'schema', file, from, to });

/** An operation (by its tRPC procedure: `list`, `create`) given another stability level than `stable`. */
const level = (procedure: string, to: StabilityLevel): Edit =>
  schema(
    'contract/operations.ts',
    `stability: 'stable',\n    trpc: { router: 'pets', procedure: '${procedure}'`,
    `stability: '${to}',\n    trpc: { router: 'pets', procedure: '${procedure}'`,
  );

/** Pending changesets: these bumps, and changesets that say these texts. */
const pending = (bumps: [string, Bump][] = [], summaries: string[] = []): Pending => ({
  bumps: new Map(bumps),
  summaries,
});
const majors = pending([
  ['@petstore/schema', 'major'],
  ['@petstore/client', 'major'],
]);
const minors = (...summaries: string[]) =>
  pending(
    [
      ['@petstore/schema', 'minor'],
      ['@petstore/client', 'minor'],
    ],
    summaries,
  );

const CASES: Case[] = [
  {
    name: 'an enum value removed from input (REST) and from PetStatus (TypeScript)',
    edits: [
      schema('pet.ts', "['available', 'pending', 'sold'] as const", "['available', 'pending'] as const"),
    ],
    verdict: 'break',
    expect: [
      'break REST consumers: listPets (GET /pets): query parameter `status`: value `sold` removed',
      'break REST consumers: createPet (POST /pets): request body field `status`: value `sold` removed',
      'break TypeScript importers of @petstore/schema: @petstore/schema export `PetStatus`: no longer accepts',
      'break TypeScript importers of @petstore/client: @petstore/client export `NewPetInput`: no longer accepts',
    ],
  },
  {
    name: 'a response header no longer promised (Location made optional)',
    edits: [
      schema(
        'contract/operations.ts',
        'description: "The new animal\'s URL, `/v1/pets/{id}` (or under the public URL).",\n          required: true,',
        'description: "The new animal\'s URL, `/v1/pets/{id}` (or under the public URL).",\n          required: false,',
      ),
    ],
    verdict: 'break',
    expect: [
      'break REST consumers: createPet (POST /pets): response 201 header `Location`: required true -> false',
    ],
  },
  {
    name: 'a request field made required',
    edits: [
      schema(
        'pet.ts',
        "      status: z\n        .optional(PetStatusSchema)\n        .check(\n          z.describe('Availability of the animal. Optional",
        "      status: PetStatusSchema.check(\n          z.describe('Availability of the animal. Optional",
      ),
    ],
    verdict: 'break',
    expect: [
      'break REST consumers: createPet (POST /pets): request body: `status` is now required',
      'break tRPC callers (createTrpcClient): createPet (tRPC pets.create): input: `status` is now required',
      'break TypeScript importers of @petstore/schema: @petstore/schema export `NewPetInput`',
    ],
  },
  {
    name: 'a bound tightened (name at most 100 characters)',
    edits: [schema('pet.ts', 'PET_NAME_MAX_LENGTH = 255', 'PET_NAME_MAX_LENGTH = 100')],
    verdict: 'break',
    expect: ['break REST consumers: createPet (POST /pets): request body field `name`: maxLength 255 -> 100'],
  },
  {
    name: 'a changed default (limit 20 -> 10)',
    edits: [schema('queries.ts', 'default: 20 }', 'default: 10 }')],
    verdict: 'break',
    expect: ['break REST consumers: listPets (GET /pets): query parameter `limit`: default 20 -> 10'],
  },
  {
    name: 'a response field made nullable (widened output)',
    edits: [
      schema(
        'pet.ts',
        "categoryId: Int64Schema.check(z.describe('Identifier of the category the animal belongs to.')),",
        "categoryId: z.nullable(Int64Schema).check(z.describe('Identifier of the category the animal belongs to.')),",
      ),
    ],
    verdict: 'break',
    expect: [
      'break REST consumers: getPet (GET /pets/{petId}): response 200 field `categoryId`',
      'break TypeScript importers of @petstore/schema: @petstore/schema export `Pet`: can now hold values',
    ],
  },
  {
    name: 'a new field in a response (closed objects: strict clients refuse it)',
    edits: [
      schema(
        'pet.ts',
        '      name: PetNameSchema.check(z.describe("The animal\'s name, exactly as it was sent.")),',
        '      name: PetNameSchema.check(z.describe("The animal\'s name, exactly as it was sent.")),\n      color: z.optional(z.string()),',
      ),
    ],
    verdict: 'break',
    expect: ['break REST consumers: getPet (GET /pets/{petId}): response 200: field `color` added'],
  },
  {
    name: 'an error code no longer sent',
    edits: [
      schema(
        'contract/operations.ts',
        "codes: ['validation_failed', 'malformed_json', 'invalid_idempotency_key'],",
        "codes: ['validation_failed', 'invalid_idempotency_key'],",
      ),
    ],
    verdict: 'break',
    expect: [
      // Against the release baseline (where 400 carried validation_failed and malformed_json) the library reports
      // the dropped code as no longer sent or as replaced by the one now in its place: a break either way.
      'break REST consumers: createPet (POST /pets): response 400: error code `malformed_json`',
    ],
  },
  {
    name: 'an error code dropped from the list (route_not_found)',
    edits: [schema('error.ts', '  route_not_found: 404,\n', '')],
    verdict: 'break',
    expect: [
      'break REST consumers: Error body (every REST error): error code `route_not_found` (404) removed',
      'break TypeScript importers of @petstore/schema: @petstore/schema export `ErrorCode`: no longer accepts',
    ],
  },
  {
    name: 'a success status changed (201 -> 200)',
    edits: [schema('contract/operations.ts', 'status: 201,', 'status: 200,')],
    verdict: 'break',
    expect: ['break REST consumers: createPet (POST /pets): response 201 removed'],
  },
  {
    name: 'an exported schema renamed (TypeScript only)',
    edits: [schema('index.ts', '  PetsPageSchema,\n', '  PetsPageSchema as PetPageSchema,\n')],
    verdict: 'break',
    expect: [
      'break TypeScript importers of @petstore/schema: @petstore/schema export `PetsPageSchema`: removed or renamed',
    ],
  },
  {
    name: 'a client function given a new required parameter (TypeScript only)',
    edits: [
      {
        pkg: 'client',
        file: 'rest-client.ts',
        from: 'export function createRestClient(options: RestClientOptions): RestClient;',
        to: 'export function createRestClient(options: RestClientOptions, region: string): RestClient;',
      },
    ],
    verdict: 'break',
    expect: [
      'break TypeScript importers of @petstore/client: @petstore/client export `createRestClient`: no longer takes',
      'break TypeScript importers of @petstore/client: released consumer code consumer/client-consumer.ts',
    ],
  },
  {
    name: 'getPet removed before its sunset (refused whatever the changeset)',
    edits: [
      schema('contract/operations.ts', /\n {2}getPet: operation\(\{[\s\S]*?\n {2}\}\),\n/, '\n'),
      schema(
        'openapi.ts',
        'const sunset = defaultContract.getPet.deprecated.sunset;',
        "const sunset = '2030-12-05';",
      ),
    ],
    verdict: 'refused',
    expect: [
      'refused REST consumers: getPet (GET /pets/{petId}): getPet is deprecated with sunset 2030-12-05',
      'break REST consumers: getPet (GET /pets/{petId}): operation removed',
    ],
  },
  {
    name: 'a request field removed (status from NewPet, which refuses unknown fields)',
    edits: [
      schema(
        'pet.ts',
        "      status: z\n        .optional(PetStatusSchema)\n        .check(\n          z.describe('Availability of the animal. Optional: omit it to leave it unset (`null` is refused).'),\n        ),\n    },\n    { error: objectError },\n  )\n  .check(\n    z.describe(\n      'Request body of createPet.",
        "    },\n    { error: objectError },\n  )\n  .check(\n    z.describe(\n      'Request body of createPet.",
      ),
    ],
    verdict: 'break',
    expect: [
      'break REST consumers: createPet (POST /pets): request body: field `status` removed',
      'break tRPC callers (createTrpcClient): createPet (tRPC pets.create): input: field `status` removed',
    ],
  },
  {
    name: "getPet's sunset moved earlier (the removal in two steps)",
    edits: [schema('contract/operations.ts', "sunset: '2030-12-05'", "sunset: '2027-01-01'")],
    verdict: 'refused',
    expect: [
      'refused REST consumers: getPet (GET /pets/{petId}): getPet is deprecated with sunset 2030-12-05: the sunset may not move earlier (to 2027-01-01)',
    ],
  },
  {
    name: 'a level lowered (listPets, released stable before levels existed, declared beta)',
    edits: [level('list', 'beta')],
    verdict: 'break',
    expect: [
      'break REST consumers: listPets (GET /pets): stability level `beta` declared (the release had no levels: it promised `stable`)',
      'break tRPC callers (createTrpcClient): listPets (tRPC pets.list): stability level `beta` declared',
    ],
  },
  {
    name: 'a new optional request field',
    edits: [
      schema(
        'pet.ts',
        "      categoryId: Int64Schema.check(\n        z.describe('Identifier of the category the animal belongs to. Exact",
        "      nickname: z.optional(z.string()),\n      categoryId: Int64Schema.check(\n        z.describe('Identifier of the category the animal belongs to. Exact",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: createPet (POST /pets): request body: field `nickname` added'],
  },
  {
    name: 'a new optional request header (X-Client-Region)',
    edits: [
      schema(
        'openapi.ts',
        '    ...Object.keys(SHARED_PARAMETERS).map(PARAMETER_REF),\n  ];',
        "    ...(op.id === 'createPet'\n      ? [{ name: 'X-Client-Region', in: 'header', required: false, schema: { type: 'string' } }]\n      : []),\n    ...Object.keys(SHARED_PARAMETERS).map(PARAMETER_REF),\n  ];",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: createPet (POST /pets): optional header parameter `X-Client-Region` added'],
  },
  {
    name: 'a new error response (404 on createPet)',
    edits: [
      schema(
        'contract/operations.ts',
        "        codes: ['idempotency_key_reused'],\n      },\n    },",
        "        codes: ['idempotency_key_reused'],\n      },\n      404: { description: 'No such category.', codes: ['pet_not_found'] },\n    },",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: createPet (POST /pets): response 404 added'],
  },
  {
    name: 'a new error code and the status that carries it (410 category_archived)',
    edits: [
      schema('error.ts', '  payload_too_large: 413,', '  category_archived: 410,\n  payload_too_large: 413,'),
      schema(
        'contract/operations.ts',
        "        codes: ['idempotency_key_reused'],\n      },\n    },",
        "        codes: ['idempotency_key_reused'],\n      },\n      410: { description: 'Category archived.', codes: ['category_archived'] },\n    },",
      ),
    ],
    verdict: 'compatible',
    expect: [
      'compatible nobody: Error body (every REST error): new error code `category_archived` (410)',
      'compatible nobody: createPet (POST /pets): response 410 added',
    ],
  },
  {
    name: 'a response header promised more firmly (Link made required)',
    edits: [
      schema(
        'contract/operations.ts',
        "present only when more animals may follow.',\n          required: false,",
        "present only when more animals may follow.',\n          required: true,",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: listPets (GET /pets): response 200 header `Link`: required false -> true'],
  },
  {
    name: 'wider input (limit up to 200)',
    edits: [schema('queries.ts', 'max: 100,', 'max: 200,')],
    verdict: 'compatible',
    expect: ['compatible nobody: listPets (GET /pets): query parameter `limit`: maximum 100 -> 200'],
  },
  {
    name: 'a new operation (tRPC pets.count)',
    edits: [
      schema(
        'contract/operations.ts',
        '} as const satisfies Record<string, OperationContract>;',
        "  countPets: operation({\n    id: 'countPets',\n    summary: 'Count animals',\n    description: 'How many animals there are.',\n    request: {},\n    input: z.strictObject({}),\n    success: { status: 200, description: 'The count', body: { id: 'Count', schema: z.int() } },\n    errors: {},\n    stability: 'experimental',\n    trpc: { router: 'pets', procedure: 'count', kind: 'query' },\n  }),\n} as const satisfies Record<string, OperationContract>;",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: countPets (tRPC pets.count): operation added'],
  },
  {
    name: 'documentation only',
    edits: [
      schema(
        'contract/operations.ts',
        "summary: 'Add an animal',",
        "summary: 'Add one animal to the store',",
      ),
    ],
    verdict: 'compatible',
    expect: ['compatible nobody: createPet (POST /pets): summary reworded'],
  },
];

const text = (finding: Finding) => `${finding.kind} ${finding.audience}: ${finding.where}: ${finding.what}`;

/** A copy of the schema (and client) sources with the edits applied; returns the entries the guard reads. */
function prepare(name: string, edits: Edit[]) {
  const dir = path.join(CASES_DIR, name.replaceAll(/[^a-z0-9]+/gi, '-').toLowerCase());
  rmSync(dir, { recursive: true, force: true });
  const copy = (pkg: 'schema' | 'client') => {
    const target = path.join(dir, pkg, 'src');
    mkdirSync(target, { recursive: true });
    cpSync(path.join(PACKAGE_DIRS[`@petstore/${pkg}`], 'src'), target, { recursive: true });
    return target;
  };
  const schemaSrc = copy('schema');
  const clientSrc = edits.some((edit) => edit.pkg === 'client')
    ? copy('client')
    : path.join(PACKAGE_DIRS['@petstore/client'], 'src');
  for (const edit of edits) {
    const file = path.join(edit.pkg === 'schema' ? schemaSrc : clientSrc, edit.file);
    const before = readFileSync(file, 'utf8');
    const after = before.replace(edit.from, edit.to);
    if (after === before) throw new Error(`${name}: the edit of ${edit.file} did not apply (${edit.from})`);
    writeFileSync(file, after);
  }
  return {
    schemaEntry: path.join(schemaSrc, 'index.ts'),
    current: {
      '@petstore/schema': path.join(schemaSrc, 'index.ts'),
      '@petstore/client': path.join(clientSrc, 'index.ts'),
    },
  };
}

async function findingsOf(name: string, edits: Edit[]): Promise<Finding[]> {
  const { schemaEntry, current } = prepare(name, edits);
  const schema = (await import(schemaEntry)) as SchemaModule;
  return compareContract({ baseline, schema, current, today: TODAY });
}

let control: Set<string>;
let controlFindings: Finding[];

beforeAll(async () => {
  expect(baseline, 'a committed release baseline').toBeDefined();
  controlFindings = await findingsOf('unchanged', []);
  control = new Set(controlFindings.map(text));
});

afterAll(() => rmSync(CASES_DIR, { recursive: true, force: true }));

describe('contract guard', () => {
  it('sees no break in an unchanged copy of the contract that no pending major changeset covers', async () => {
    // A break made on purpose since the release is allowed once a pending changeset makes it a major version
    // (what `pnpm contract:check` asks for); nothing may be refused.
    const { bumps } = await pendingChangesets(ROOT);
    const uncovered = controlFindings.filter(
      (finding) =>
        finding.kind === 'refused' ||
        (finding.kind === 'break' && finding.packages.some((pkg) => bumps.get(pkg) !== 'major')),
    );
    expect(uncovered.map(text)).toEqual([]);
  });

  it.each(CASES)('$name: $verdict', async ({ name, edits, verdict, expect: phrases }) => {
    const added = (await findingsOf(name, edits)).filter((finding) => !control.has(text(finding)));
    const lines = added.map(text);
    for (const phrase of phrases) {
      expect(
        lines.some((line) => line.startsWith(phrase)),
        `"${phrase}" in:\n${lines.join('\n')}`,
      ).toBe(true);
    }
    const kinds = new Set(added.map((finding) => finding.kind));
    const none = pending();
    if (verdict === 'compatible') {
      expect([...kinds], lines.join('\n')).toEqual(['compatible']);
      expect(judge(added, none, 'baseline').ok).toBe(true);
    } else if (verdict === 'break') {
      expect(kinds.has('refused')).toBe(false);
      const refusedWithoutMajor = judge(added, none, 'baseline');
      expect(refusedWithoutMajor.ok).toBe(false);
      expect(refusedWithoutMajor.report).toMatch(/FAILED: no major changeset for @petstore\//);
      expect(judge(added, majors, 'baseline').ok).toBe(true);
    } else {
      const withMajors = judge(added, majors, 'baseline');
      expect(withMajors.ok).toBe(false);
      expect(withMajors.report).toMatch(/REFUSED \(no version allows it\): getPet/);
    }
  });

  it('allows removing a deprecated operation after its sunset, with a major changeset', async () => {
    const cases = CASES.find((each) => each.verdict === 'refused') as Case;
    const { schemaEntry, current } = prepare('after-sunset', cases.edits);
    const schema = (await import(schemaEntry)) as SchemaModule;
    const findings = compareContract({ baseline, schema, current, today: '2030-12-05', wireOnly: true });
    expect(findings.filter((finding) => finding.kind === 'refused')).toEqual([]);
    expect(judge(findings, majors, 'baseline').ok).toBe(true);
    expect(judge(findings, pending(), 'baseline').ok).toBe(false);
  });

  it('writes the changes in plain words for the changelog, with the bump each package needs', async () => {
    const bound = CASES.find((each) => each.name.startsWith('a bound tightened')) as Case;
    const added = (await findingsOf('changelog', bound.edits)).filter(
      (finding) => !control.has(text(finding)),
    );
    const entry = changelogText(added, 'the last release');
    expect(entry).toContain(
      '- **Breaks REST consumers**: createPet (POST /pets): request body field `name`: maxLength 255 -> 100',
    );
    expect(entry).toContain(
      '- Compatible: getPet (GET /pets/{petId}): response 200 field `name`: maxLength 255 -> 100',
    );
    expect(Object.fromEntries(neededBumps(added, []))).toEqual({
      '@petstore/schema': 'major',
      '@petstore/client': 'major',
    });
    expect(changelogText([], 'the last release')).toBe('');
  });
});

// The levels' rules need a release that has levels; the committed one predates them. Each test writes one, as
// `cli.ts release` would (the documents only: these comparisons are of the wire, without the type checker), from a
// copy of the contract in which createPet has the level under test.
describe('stability levels: a break needs the version its operation was released with', () => {
  /** A wire break of createPet alone (REST and tRPC): its 400 no longer carries `malformed_json`. */
  const dropCode = schema(
    'contract/operations.ts',
    "codes: ['validation_failed', 'malformed_json', 'invalid_idempotency_key'],",
    "codes: ['validation_failed', 'invalid_idempotency_key'],",
  );

  /** A release baseline of the contract with these edits; returns its directory. */
  async function released(name: string, edits: Edit[]): Promise<string> {
    const { schemaEntry } = prepare(`${name}-source`, edits);
    const documents = describeContract((await import(schemaEntry)) as SchemaModule);
    const dir = path.join(CASES_DIR, `${name}-released`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'openapi.json'), documentJson(documents.openapi));
    writeFileSync(path.join(dir, 'trpc.json'), documentJson(documents.trpc));
    const versions = { '@petstore/schema': '1.0.0', '@petstore/client': '1.0.0' };
    writeFileSync(path.join(dir, 'release.json'), JSON.stringify({ versions, date: TODAY, commit: 'test' }));
    return dir;
  }

  /** createPet released at one level, now at another, with these edits: the differences found. */
  async function createPetFindings(name: string, was: StabilityLevel, now: StabilityLevel, edits: Edit[]) {
    const levelEdit = (to: StabilityLevel) => (to === 'stable' ? [] : [level('create', to)]);
    const baselineDir = await released(name, levelEdit(was));
    const { schemaEntry, current } = prepare(`${name}-now`, [...levelEdit(now), ...edits]);
    const schemaNow = (await import(schemaEntry)) as SchemaModule;
    return compareContract({
      baseline: baselineDir,
      schema: schemaNow,
      current,
      today: TODAY,
      wireOnly: true,
    });
  }

  const breaksOf = (findings: Finding[]) => findings.filter((finding) => finding.kind === 'break');

  it('refuses a break of a stable operation in a minor version', async () => {
    const findings = await createPetFindings('stable-break', 'stable', 'stable', [dropCode]);
    const breaks = breaksOf(findings);
    const onCreatePet = 'break REST consumers: createPet (POST /pets): response 400: ';
    expect(breaks.some((finding) => text(finding).startsWith(onCreatePet))).toBe(true);
    expect(breaks.every((finding) => finding.stability === 'stable')).toBe(true);
    const verdict = judge(findings, minors(), 'baseline');
    expect(verdict.ok).toBe(false);
    expect(verdict.missingMajor).toEqual(['@petstore/client', '@petstore/schema']);
    expect(verdict.report).toMatch(/FAILED: no major changeset for @petstore\/client, @petstore\/schema/);
    expect(judge(findings, majors, 'baseline').ok).toBe(true);
  });

  it('accepts the same break of an experimental operation in a minor version, reported apart', async () => {
    const findings = await createPetFindings('experimental-break', 'experimental', 'experimental', [
      dropCode,
    ]);
    const breaks = breaksOf(findings);
    expect(breaks.length).toBeGreaterThan(0);
    expect(breaks.every((finding) => finding.stability === 'experimental')).toBe(true);
    const verdict = judge(findings, minors(), 'baseline');
    expect(verdict.ok, verdict.report).toBe(true);
    expect(verdict.report).toMatch(
      /Breaks REST consumers in operations that are not stable, which a minor version allows \(\d+\):\n {2}- createPet \(POST \/pets\): response 400: .* \[experimental\]/,
    );
    expect(verdict.report).not.toMatch(/Needs a major/);
    // Still a change someone notices: a patch does not carry it.
    const patch = judge(
      findings,
      pending([
        ['@petstore/schema', 'patch'],
        ['@petstore/client', 'patch'],
      ]),
      'baseline',
    );
    expect(patch.ok).toBe(false);
    expect(patch.missingMinor).toEqual(['@petstore/client', '@petstore/schema']);
    expect(patch.report).toMatch(/FAILED: no minor \(or major\) changeset for @petstore\/client/);
    // The changelog says which level allowed it, and asks for a minor.
    expect(changelogText(findings, 'the last release')).toContain(
      '- **Breaks REST consumers** (experimental operation): createPet (POST /pets): response 400',
    );
    expect(Object.fromEntries(neededBumps(findings, []))).toEqual({
      '@petstore/schema': 'minor',
      '@petstore/client': 'minor',
    });
  });

  it('accepts a break of a beta operation in a minor version only with a changeset that names it', async () => {
    const findings = await createPetFindings('beta-break', 'beta', 'beta', [dropCode]);
    expect(breaksOf(findings).every((finding) => finding.stability === 'beta')).toBe(true);
    const unnamed = judge(findings, minors('Smaller 400 answers.'), 'baseline');
    expect(unnamed.ok).toBe(false);
    expect(unnamed.report).toMatch(/A break of a beta operation \(createPet\) needs only a minor when/);
    // A word that merely contains the name does not name it.
    expect(judge(findings, minors('createPets is gone.'), 'baseline').ok).toBe(false);
    const named = minors('createPet no longer answers `malformed_json`: its 400 is `validation_failed`.');
    expect(judge(findings, named, 'baseline').ok).toBe(true);
  });

  it('counts lowering a level as a break at the level released, and raising it as compatible', async () => {
    const lowered = await createPetFindings('lowered', 'stable', 'beta', []);
    expect(breaksOf(lowered).map(text)).toContain(
      'break REST consumers: createPet (POST /pets): stability level `stable` -> `beta`',
    );
    expect(judge(lowered, minors('createPet becomes beta.'), 'baseline').ok).toBe(false);
    expect(judge(lowered, majors, 'baseline').ok).toBe(true);
    const raised = await createPetFindings('raised', 'experimental', 'stable', []);
    expect(raised.map(text)).toContain(
      'compatible nobody: createPet (POST /pets): stability level `experimental` -> `stable`',
    );
    expect(raised.filter((finding) => finding.kind !== 'compatible')).toEqual([]);
    // A break made while raising the level is judged at the level the callers were given.
    const raisedAndBroken = await createPetFindings('raised-broken', 'experimental', 'stable', [dropCode]);
    expect(judge(raisedAndBroken, minors(), 'baseline').ok).toBe(true);
  });
});
