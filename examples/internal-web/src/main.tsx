import { createTrpcClient } from '@petstore/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createConnectionMonitor } from './connection.js';
import { createQueryClient } from './query-client.js';
import { TRPCProvider } from './trpc.js';
import './styles.css';

const connection = createConnectionMonitor();

// The API is reached through the server that serves this page (vite.config.ts): same origin, so no CORS, and
// `apiKey: null` because that server adds the key. The client brings retries with Retry-After, idempotency keys
// and superjson (int64 values as bigint).
const trpcClient = createTrpcClient({
  url: `${location.origin}/v1/trpc`,
  apiKey: null,
  fetch: connection.fetch,
});

const queryClient = createQueryClient();

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <App connection={connection} />
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
