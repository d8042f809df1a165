import type { AppRouter } from '@petstore/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';

/** `useTRPC()` gives `trpc.pets.page.infiniteQueryOptions(...)`, `trpc.pets.create.mutationOptions()`, ... */
export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();
