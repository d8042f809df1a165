import type { Pet, PetsPage } from '@petstore/schema';
import type { InfiniteData } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { withNewPet } from './live-pets.js';

const pet = (id: bigint, status?: Pet['status']): Pet => ({
  id,
  name: `Pet ${id}`,
  categoryId: 1n,
  ...(status === undefined ? {} : { status }),
});
const list = (...pages: [bigint[], string | null][]): InfiniteData<PetsPage, unknown> => ({
  pages: pages.map(([ids, nextCursor]) => ({ items: ids.map((id) => pet(id)), nextCursor })),
  pageParams: pages.map((_, index) => index),
});
const ids = (data: InfiniteData<PetsPage, unknown> | undefined) =>
  data?.pages.map((page) => page.items.map((item) => item.id));

describe('a new pet in the lists', () => {
  it('joins the end of a fully loaded list, or the page whose ids it falls among', () => {
    expect(ids(withNewPet(list([[1n, 2n], null]), undefined, pet(9n)))).toEqual([[1n, 2n, 9n]]);
    expect(ids(withNewPet(list([[1n, 5n], 'c1'], [[6n, 8n], null]), undefined, pet(3n)))).toEqual([
      [1n, 3n, 5n],
      [6n, 8n],
    ]);
  });

  it('waits for "Load more" when it belongs after the pages loaded', () => {
    const partial = list([[1n, 2n], 'c1']);
    expect(withNewPet(partial, undefined, pet(9n))).toBe(partial);
  });

  it('is added once, and only to lists whose filter it matches', () => {
    const loaded = list([[1n, 2n], null]);
    expect(withNewPet(loaded, undefined, pet(2n))).toBe(loaded);
    expect(withNewPet(loaded, 'sold', pet(9n, 'available'))).toBe(loaded);
    expect(ids(withNewPet(loaded, 'sold', pet(9n, 'sold')))).toEqual([[1n, 2n, 9n]]);
    expect(withNewPet(undefined, undefined, pet(9n))).toBeUndefined();
  });
});
