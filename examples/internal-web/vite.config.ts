// The app calls `/v1/trpc` on its own origin. The dev server (`vite`) and the preview server (`vite preview`,
// which serves the built app) forward `/v1` to the API and add the API key there, server-side: no key is in the
// bundle or the browser, and the API needs no CORS set-up. Deployed, the same job falls to whatever serves the
// app (a reverse proxy or the staff portal's backend) — see README.md, "How the browser authenticates".
import { readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type ProxyOptions } from 'vite';

/** Where the API listens (its origin, without /v1). */
const apiOrigin = process.env.PETSTORE_API_ORIGIN || 'http://127.0.0.1:3000';
/** The development key the API writes when started without API_KEYS (`pnpm web`, `pnpm start`: ./.data at the root). */
const devKeyFile = process.env.PETSTORE_DEV_KEY_FILE || new URL('../../.data/dev-api-key', import.meta.url);

/**
 * PETSTORE_API_KEY, or else the API's development key, read when a request needs it: under `pnpm web` the API
 * may write it only after this server has started.
 */
function apiKey(): string | undefined {
  if (process.env.PETSTORE_API_KEY) return process.env.PETSTORE_API_KEY;
  try {
    return readFileSync(devKeyFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

const proxy: Record<string, ProxyOptions> = {
  '/v1': {
    target: apiOrigin,
    changeOrigin: true,
    configure: (server) => {
      server.on('proxyReq', (request) => {
        const key = apiKey();
        // Whatever the browser sent is replaced: the only credential is the server's.
        if (key === undefined) request.removeHeader('authorization');
        else request.setHeader('authorization', `Bearer ${key}`);
      });
    },
  },
};

export default defineConfig({
  plugins: [react()],
  // The workspace packages are read from their TypeScript source, as everywhere in the repository: nothing needs
  // building first (an app outside the repository gets their dist through the same package names).
  resolve: { conditions: ['@petstore/source', ...defaultClientConditions] },
  server: { host: '127.0.0.1', port: 5173, proxy },
  preview: { host: '127.0.0.1', port: 4173, proxy },
  build: { target: 'es2022' },
});
