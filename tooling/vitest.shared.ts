// Shared vitest settings for every workspace package.
//
// Workspace packages export a "@petstore/source" condition pointing at their TypeScript source, so tests
// need no build first. Since Vite 6, setting `conditions` replaces Vite's defaults instead of adding to them,
// so the defaults are listed again. `ssr.resolve.conditions` is what vitest resolves with in Node.
const conditions = ['@petstore/source', 'module', 'node', 'development|production'];

export const sharedConfig = {
  resolve: { conditions },
  ssr: { resolve: { conditions } },
};

/** In CI every test name is printed, so the log shows which database each suite ran against. */
export const reporters = process.env.CI ? ['verbose'] : ['default'];
