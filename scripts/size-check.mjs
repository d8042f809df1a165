#!/usr/bin/env node
// Size gate: what a web page ships when it bundles our client. Each entry below is bundled as an external team
// would (esbuild, --bundle --platform=browser --minify) against the built packages, gzipped at level 9, and
// compared with its budget. Bytes are deterministic, so this is a gate, not a benchmark: over budget fails, and
// the report names the packages that take the most room.
//
//   node scripts/size-check.mjs            (`pnpm size`: builds the client first)
//   node scripts/size-check.mjs --no-build (the packages are already built)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/** What a page imports, and the most it may weigh (gzip -9 of the minified bundle). */
export const BUDGETS = [
  {
    name: 'createRestClient only',
    code: `import { createRestClient } from '@petstore/client';
const client = createRestClient({ baseUrl: location.origin + '/v1', apiKey: 'key' });
globalThis.calls = [client.listPets, client.createPet, client.getPet];`,
    // 20 KB until the change feed: its follower (followPetEvents, a method of every client, so never shaken out:
    // the event-stream reader, reconnects, the event check) adds about 1.3 KB. 21 KB until 2026-11-27: the int64
    // input check (a number the wire would round is refused, not sent altered) and base URLs used as checked, 0.4 KB.
    // 21.5 KB until 2026-11-28: the contract declares Last-Event-ID by the decoder the server applies (the
    // document said any string), which brings the integer-text rule into the contract's module, a few bytes.
    gzipBytes: 22 * 1024,
    // The packages are side-effect free: a REST-only page must not carry the tRPC client, superjson, zod
    // classic or the OpenAPI generator.
    mustNotInclude: [
      /@trpc\//,
      /\/superjson\//,
      /zod\/v4\/classic\//,
      /json-schema/,
      /schema\/dist\/openapi\./,
    ],
  },
  {
    name: 'both clients',
    code: `import { createRestClient, createTrpcClient } from '@petstore/client';
globalThis.rest = createRestClient({ baseUrl: location.origin + '/v1', apiKey: 'key' });
globalThis.trpc = createTrpcClient({ url: location.origin + '/v1/trpc', apiKey: 'key' });`,
    // 35 KB until the change feed: tRPC's subscription link (httpSubscriptionLink, its SSE reader) and the
    // `eventsource` ponyfill that lets it send the bearer key add about 6.3 KB; the REST follower 1.3 KB. 39 KB until
    // 2026-11-27: the int64 input check on both clients, a subscription's refusal read (its Error body) and tRPC
    // replies read as REST reads them (a proxy's HTML 502 with its status and attempts), 0.8 KB.
    gzipBytes: 40 * 1024,
  },
  {
    // A whole app rather than a snippet: its entry is bundled as its own build would (JSX, React in production
    // mode), against the same built packages. React and react-dom are most of it (about 60 KB).
    name: 'examples/internal-web (React + TanStack Query + tRPC + the NewPet form)',
    entry: 'examples/internal-web/src/main.tsx',
    // 120 KB until 2026-11-27: the tRPC client's int64 check, refusal reading and reply reading, 1.2 KB.
    gzipBytes: 121 * 1024,
    // The app talks tRPC only: the REST client's paging and the OpenAPI generator must stay out.
    mustNotInclude: [/client\/dist\/rest-client/, /json-schema/, /schema\/dist\/openapi\./],
  },
];

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The package (or file) each input of a bundle's output belongs to, with the minified bytes it put there. */
function largestInputs(output, count = 5) {
  const byPackage = new Map();
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const inPackage = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)/.exec(file);
    const name = inPackage ? `${inPackage[1]}/${inPackage[2]}` : path.relative(root, path.resolve(file));
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, count);
}

/** Bundles each budget's page with `@petstore/client` resolved from `resolveDir`; returns the figures. */
export async function measure(resolveDir) {
  const results = [];
  for (const budget of BUDGETS) {
    const { outputFiles, metafile } = await build({
      ...(budget.entry === undefined
        ? { stdin: { contents: budget.code, resolveDir, sourcefile: 'page.js' } }
        : {
            entryPoints: [path.join(root, budget.entry)],
            outdir: 'out',
            jsx: 'automatic',
            define: { 'process.env.NODE_ENV': '"production"' },
          }),
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'error',
    });
    // The script, not the stylesheet an app's CSS imports become.
    const script = outputFiles.findIndex((file) => !file.path.endsWith('.css'));
    const bytes = outputFiles[script].contents;
    const output = Object.entries(metafile.outputs).find(([file]) => !file.endsWith('.css'))[1];
    // Inputs that put bytes in the page (esbuild lists the ones it dropped with 0 bytes).
    const inputs = Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([file]) => file);
    results.push({
      ...budget,
      unwanted: (budget.mustNotInclude ?? []).flatMap((pattern) =>
        inputs.filter((file) => pattern.test(file)),
      ),
      minifiedBytes: bytes.length,
      actualGzipBytes: gzipSync(bytes, { level: 9 }).length,
      largest: largestInputs(output),
    });
  }
  return results;
}

/** Prints the figures; returns false when any page is over its budget. */
export function report(results) {
  let ok = true;
  for (const result of results) {
    const over = result.actualGzipBytes > result.gzipBytes;
    ok &&= !over && result.unwanted.length === 0;
    for (const file of result.unwanted) console.log(`UNWANTED in ${result.name}: ${file}`);
    console.log(
      `${over ? 'OVER' : 'ok  '} ${result.name}: ${kb(result.actualGzipBytes)} gzip (${kb(result.minifiedBytes)} minified), budget ${kb(result.gzipBytes)}`,
    );
    if (over) {
      for (const [name, bytes] of result.largest)
        console.log(`       ${kb(bytes).padStart(8)} minified  ${name}`);
    }
  }
  return ok;
}

if (import.meta.main) {
  if (!process.argv.includes('--no-build')) {
    execFileSync(
      'npx',
      ['-y', 'pnpm@12', 'turbo', 'run', 'build', '--output-logs=errors-only', '--filter=@petstore/client'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
  }
  // The client package resolves its own name through its `exports`, as a consumer's bundler would.
  const ok = report(await measure(path.join(root, 'packages/client')));
  if (!ok) {
    console.error('size-check: a page is over its budget or carries what it does not use (see above)');
    process.exit(1);
  }
}
