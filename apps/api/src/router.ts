// Type-only entry point for clients: `import type { AppRouter } from '@petstore/api/router'`.
// It exports no values, so importing it pulls no server code, Prisma or Express into a client build.
export type { AppRouter } from './trpc/router.js';
