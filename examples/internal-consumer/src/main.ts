// An internal app talking to the Pet Store service through both clients. With the api started (`pnpm start`), from
// the repository's root (where the api keeps its development key):
//   PETSTORE_URL=http://127.0.0.1:3000/v1 PETSTORE_API_KEY=$(cat .data/dev-api-key) pnpm --filter @petstore/internal-consumer-example start
import { apiErrorOf, createRestClient, createTrpcClient, type Pet } from '@petstore/client';

const baseUrl = process.env.PETSTORE_URL;
const apiKey = process.env.PETSTORE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set PETSTORE_URL (the base URL, ending in /v1) and PETSTORE_API_KEY.');
  process.exit(2);
}

const show = (pet: Pet) =>
  `#${pet.id} ${pet.name} (category ${pet.categoryId}, ${pet.status ?? 'no status'})`;

// REST: what external consumers use too.
const rest = createRestClient({ baseUrl, apiKey });
const rex = await rest.createPet({ name: 'Rex', categoryId: 9007199254740993n, status: 'available' });
console.log('REST created', show(rex));
console.log('REST available:', (await rest.listPets({ status: 'available', limit: 5 })).map(show));

// tRPC: the same service, typed end to end by its router.
const trpc = createTrpcClient({ url: `${baseUrl}/trpc`, apiKey });
const max = await trpc.pets.create.mutate({ name: 'Max', categoryId: 7 });
console.log('tRPC created', show(max));
console.log('tRPC read', show(await trpc.pets.get.query({ petId: rex.id })));
console.log('tRPC list:', (await trpc.pets.list.query({ limit: 5 })).map(show));

// Paging. REST: a page at a time (the next cursor comes from the `Link: rel="next"` header), or every pet
// through an async iterator that follows Link to the end.
const firstPage = await rest.listPetsPage({ status: 'available', limit: 2 });
console.log('REST first page:', firstPage.pets.map(show), 'next cursor:', firstPage.nextCursor);
let count = 0;
for await (const _pet of rest.allPets({ status: 'available', limit: 100 })) count += 1;
console.log('REST: every available pet,', count, 'in all');

// tRPC: pets.page is what TanStack Query's useInfiniteQuery wants (getNextPageParam: (page) =>
// page.nextCursor ?? undefined). Without React, the same loop by hand; cursors are the same as REST's.
const pages: Pet[][] = [];
let cursor: string | undefined;
do {
  const page = await trpc.pets.page.query({ status: 'available', limit: 2, cursor });
  pages.push(page.items);
  cursor = page.nextCursor ?? undefined;
} while (cursor !== undefined && pages.length < 5);
console.log(
  'tRPC pages:',
  pages.map((page) => page.map(show)),
);

// Both transports fail with the same Error body.
for (const attempt of [rest.listPets({ limit: 0 }), trpc.pets.list.query({ limit: 0 })]) {
  await attempt.catch((error: unknown) => console.log('refused as expected:', apiErrorOf(error)));
}
