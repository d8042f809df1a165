import { apiErrorOf } from '@petstore/client';
import { PET_STATUSES, type PetStatus } from '@petstore/schema';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useLivePets } from './live-pets.js';
import { isPetStatus } from './pet-form.js';
import { useTRPC } from './trpc.js';

/** Pets per page: the API's largest page, so 250 pets are three requests. */
const PAGE_SIZE = 100;

/**
 * The pet list over `pets.page`, a page at a time, filtered by status. ids and categoryIds are bigints. Pets added
 * anywhere else join it as they are created (live-pets.ts).
 */
export function BrowsePets() {
  const trpc = useTRPC();
  const live = useLivePets();
  const filterId = useId();
  const [status, setStatus] = useState<PetStatus | ''>('');
  const pets = useInfiniteQuery(
    trpc.pets.page.infiniteQueryOptions(status === '' ? { limit: PAGE_SIZE } : { status, limit: PAGE_SIZE }, {
      getNextPageParam: (page) => page.nextCursor ?? undefined,
    }),
  );
  const rows = pets.data?.pages.flatMap((page) => page.items) ?? [];

  // After "Load more", focus moves to the first pet it loaded, so a keyboard or screen reader user carries on
  // reading where the list grew (and is not left on a button that may have gone).
  const body = useRef<HTMLTableSectionElement>(null);
  const [focusRow, setFocusRow] = useState<number>();
  useEffect(() => {
    if (focusRow === undefined || pets.isFetchingNextPage) return;
    body.current?.rows[focusRow]?.focus();
    setFocusRow(undefined);
  }, [focusRow, pets.isFetchingNextPage]);

  const label = status === '' ? 'Pets' : `Pets with status ${status}`;
  return (
    <section aria-labelledby="browse-heading">
      <h2 id="browse-heading">Pets</h2>
      <p role="status" className={`live ${live.state}`}>
        {live.state === 'live'
          ? 'Live: pets added anywhere appear here.'
          : live.state === 'stopped'
            ? `Live updates stopped (${live.error ?? 'the Pet Store API did not answer'}); the list was fetched again.`
            : 'Connecting to live updates…'}
      </p>
      <div className="field">
        <label htmlFor={filterId}>Show status</label>
        <select
          id={filterId}
          value={status}
          onChange={(event) => setStatus(isPetStatus(event.target.value) ? event.target.value : '')}
        >
          <option value="">all</option>
          {PET_STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </div>
      {pets.isPending ? (
        <p role="status">Loading pets…</p>
      ) : pets.isError && rows.length === 0 ? (
        <p role="alert">
          Could not load pets: {apiErrorOf(pets.error)?.message ?? 'the Pet Store API did not answer'}.
        </p>
      ) : rows.length === 0 ? (
        <p role="status">{status === '' ? 'No pets yet.' : `No pets with status ${status}.`}</p>
      ) : (
        <>
          <table>
            <caption>
              {label}: {rows.length} shown{pets.hasNextPage ? ', more to load' : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Name</th>
                <th scope="col">Category id</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody ref={body}>
              {rows.map((pet) => (
                <tr key={String(pet.id)} tabIndex={-1}>
                  <td className="int64">{String(pet.id)}</td>
                  <td>{pet.name}</td>
                  <td className="int64">{String(pet.categoryId)}</td>
                  <td>{pet.status ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {pets.hasNextPage ? (
            <button
              type="button"
              disabled={pets.isFetchingNextPage}
              onClick={() => {
                setFocusRow(rows.length);
                void pets.fetchNextPage();
              }}
            >
              {pets.isFetchingNextPage ? 'Loading more…' : 'Load more'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}
