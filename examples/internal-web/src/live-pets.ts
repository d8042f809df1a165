// Pets created elsewhere (another clerk, another app, a script) appear in the list as they are added, without a
// refetch: the page follows the change feed (`pets.events`, a tRPC subscription over Server-Sent Events that
// resumes by itself after a dropped connection) and writes each new pet into the lists TanStack Query holds.
import type { Pet, PetEvent, PetStatus, PetsPage } from '@petstore/schema';
import { type InfiniteData, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useTRPC } from './trpc.js';

/**
 * A list of pets (pages in id order, filtered by `status` when set) with `pet` added where it belongs: in the
 * page whose ids it falls among, or at the end when every page is loaded. Unchanged when the pet is already there,
 * does not match the filter, or belongs after the pages loaded so far ("Load more" brings it then).
 */
export function withNewPet(
  list: InfiniteData<PetsPage, unknown> | undefined,
  status: PetStatus | undefined,
  pet: Pet,
): InfiniteData<PetsPage, unknown> | undefined {
  if (list === undefined || (status !== undefined && pet.status !== status)) return list;
  const { pages } = list;
  if (pages.some((page) => page.items.some((item) => item.id === pet.id))) return list;
  const found = pages.findIndex((page) => page.items.some((item) => item.id > pet.id));
  if (found === -1 && pages.at(-1)?.nextCursor !== null) return list;
  const at = found === -1 ? pages.length - 1 : found;
  return {
    ...list,
    pages: pages.map((page, index) => {
      if (index !== at) return page;
      const before = page.items.filter((item) => item.id < pet.id);
      return { ...page, items: [...before, pet, ...page.items.slice(before.length)] };
    }),
  };
}

export type LiveState = 'connecting' | 'live' | 'stopped';

/**
 * Follows the feed from now while the list is shown; returns whether new pets are arriving. The feed resumes by
 * itself after a dropped connection; an error it cannot resume from (the service no longer has the events it
 * missed) stops it, and the lists are fetched again.
 */
export function useLivePets(): { state: LiveState; error: string | undefined } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const subscription = useSubscription(
    trpc.pets.events.subscriptionOptions(
      {},
      {
        onData: (tracked) => {
          // tRPC hands onData `{ id, data }` for a tracked() event; @petstore/schema/trpc declares the server's
          // envelope for it, hence the cast.
          const { pet } = (tracked as unknown as { data: PetEvent }).data;
          for (const query of queryClient.getQueryCache().findAll(trpc.pets.page.pathFilter())) {
            const input = (query.queryKey[1] as { input?: { status?: PetStatus } } | undefined)?.input;
            queryClient.setQueryData<InfiniteData<PetsPage, unknown>>(query.queryKey, (list) =>
              withNewPet(list, input?.status, pet),
            );
          }
        },
        onError: () => {
          void queryClient.invalidateQueries(trpc.pets.page.pathFilter());
        },
      },
    ),
  );
  const state =
    subscription.status === 'pending' ? 'live' : subscription.status === 'error' ? 'stopped' : 'connecting';
  return { state, error: subscription.error?.message };
}
