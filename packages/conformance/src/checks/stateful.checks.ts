import { LIST_LIMIT, PET_STATUSES, type Pet } from '@petstore/schema';
import {
  type Check,
  check,
  expectAscendingIds,
  expectPet,
  expectPets,
  expectSamePet,
  fail,
  reference,
} from '../check.js';

/** Pets created at once by `concurrency.burst-create`. */
const BURST_SIZE = 50;

export const statefulChecks: Check[] = [
  {
    id: 'stateful.create-read-list',
    interfaceDescription:
      'create, then getPet returns it, then listPets?status=X&limit=100 lists it, or is a full page of pets of that status',
    description:
      'create, then getPet returns it, then listPets?status=X&limit=100 lists it, or (on a database with 100+ ' +
      'older pets of that status) is a full page, filtered, sorted, of ids all below it',
    spec:
      'What the service does 1-3, Endpoints: a created pet is read back by getPet and listed under its status ' +
      '(the ordering of the list is not shown: a missing pet is accepted only behind a full page)',
    decision: 'Decision: ordering of listPets (id ascending)',
    async run(ctx) {
      for (const status of PET_STATUSES) {
        const name = ctx.fixtures.uniqueName(`stateful ${status}`);
        const { pet } = await ctx.fixtures.createPet({ name, categoryId: 21, status });
        const read = await ctx.http.send(`/pets/${pet.id}`);
        expectSamePet(ctx, expectPet(ctx, read, 200), pet, read);

        const listed = await ctx.http.send(`/pets?status=${status}&limit=${LIST_LIMIT.max}`);
        const pets = expectPets(ctx, listed);
        if (reference(ctx)) expectAscendingIds(pets, listed);
        const other = pets.find((item) => item.status !== status);
        check(
          other === undefined,
          `status=${status} listed pet ${other?.id} with status ${other?.status}`,
          listed,
        );
        const found = pets.find((item) => item.id === pet.id);
        if (found) {
          expectSamePet(ctx, found, pet, listed);
        } else {
          // Ordered by id ascending: a new pet is missing from the first page only behind a full page of older
          // ones. Without our ordering (the interface shows none), only behind a full page.
          check(
            pets.length === LIST_LIMIT.max && (!reference(ctx) || (pets.at(-1) as Pet).id < pet.id),
            `pet ${pet.id} (status ${status}) is not listed, and the page is not a full page of older pets ` +
              `(${pets.length} pets, last id ${pets.at(-1)?.id ?? 'none'})`,
            listed,
          );
        }
      }
    },
  },
  {
    id: 'stateful.ids-increasing',
    description:
      'ids are assigned by the service, unique and increasing in creation order (listing is oldest first)',
    decision: 'Decision: ordering of listPets (id ascending, so ids increase with creation)',
    async run(ctx) {
      let previous: Pet | undefined;
      for (let index = 0; index < 5; index += 1) {
        const { pet, exchange } = await ctx.fixtures.createPet({
          name: ctx.fixtures.uniqueName('sequence'),
          categoryId: index,
        });
        if (previous !== undefined && !(pet.id > previous.id)) {
          fail(`pet created after id ${previous.id} got id ${pet.id}`, exchange);
        }
        previous = pet;
      }
    },
  },
  {
    id: 'concurrency.burst-create',
    description: `${BURST_SIZE} concurrent creates all succeed with distinct ids, and each reads back as created: none lost or duplicated`,
    spec: 'Resources / Pet: id is a unique identifier assigned by the service on creation',
    async run(ctx) {
      const wanted = Array.from({ length: BURST_SIZE }, (_, index) => ({
        name: ctx.fixtures.uniqueName('burst'),
        categoryId: BigInt(index),
        status: PET_STATUSES[index % PET_STATUSES.length],
      }));
      const created = await Promise.all(wanted.map((newPet) => ctx.fixtures.createPet(newPet)));
      const ids = new Set<bigint>();
      created.forEach(({ pet, exchange }, index) => {
        expectSamePet(ctx, pet, wanted[index] as (typeof wanted)[number], exchange);
        check(!ids.has(pet.id), `id ${pet.id} was given to two pets created at once`, exchange);
        ids.add(pet.id);
      });
      const reads = await Promise.all(created.map(({ pet }) => ctx.http.send(`/pets/${pet.id}`)));
      reads.forEach((read, index) => {
        expectSamePet(ctx, expectPet(ctx, read, 200), (created[index] as (typeof created)[number]).pet, read);
      });
    },
  },
];
