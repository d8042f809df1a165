// Importing the clients (and with them the contract's AppRouter type) must pull no server code into an app's
// build: bundle this example as an app would and look at what went in.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const SERVER_CODE = /^(apps\/api|@prisma\/|prisma|express|pg\/|pg-|@electric-sql\/|pino)/i;

// `../../node_modules/.pnpm/<store dir>/node_modules/@trpc/client/dist/x.mjs` -> `@trpc/client/dist/x.mjs`
// (store directory names list peer dependencies, express among them, so only the part after them counts);
// a workspace file -> its path from the repository root.
const origin = (input: string) =>
  input
    .split('node_modules/')
    .at(-1)
    ?.replace(/^(\.\.\/)+/, '') ?? input;

it('a bundle of the example contains the clients and no server code', async () => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    // Read the workspace packages from source, as the repository does: the strictest case, since the source has
    // every import the dist has and more (type-only ones included).
    conditions: ['@petstore/source'],
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.some((input) => input.includes('packages/client/src/trpc-client.ts'))).toBe(true);
  expect(inputs.some((input) => input.includes('@trpc/client'))).toBe(true);
  expect(inputs.map(origin).filter((input) => SERVER_CODE.test(input))).toEqual([]);
  const code = result.outputFiles[0]?.text ?? '';
  expect(code).not.toMatch(/@petstore\/api|PrismaClient|from ['"]express['"]|from ['"]pg['"]/);
});
