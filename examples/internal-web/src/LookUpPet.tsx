import { apiErrorOf } from '@petstore/client';
import { GetPetInputSchema, operations } from '@petstore/schema';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { isTransient } from './connection.js';
import { int64FromText } from './pet-form.js';
import { useTRPC } from './trpc.js';

/** "5 December 2030" for "2030-12-05". */
const longDate = (isoDate: string) =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** getPet's deprecation, as the contract declares it (the same data the API's Deprecation/Sunset headers carry). */
const GET_PET = operations.find((op) => op.id === 'getPet');
const DEPRECATED = GET_PET?.deprecated;

/**
 * One pet by id, through the deprecated `pets.get`: staff look pets up by the number on a tag, which the list
 * cannot do. The page says so, with the date it stops working, so nobody builds a habit on it unawares.
 */
export function LookUpPet() {
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [petId, setPetId] = useState<bigint>();
  const input = useRef<HTMLInputElement>(null);
  const result = useRef<HTMLDivElement>(null);
  const pet = useQuery(
    trpc.pets.get.queryOptions(
      { petId: petId ?? 0n },
      { enabled: petId !== undefined, retry: (failures, failure) => failures < 3 && isTransient(failure) },
    ),
  );
  const settled = petId !== undefined && !pet.isFetching;
  useEffect(() => {
    if (settled) result.current?.focus();
  }, [settled]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = GetPetInputSchema.safeParse({ petId: int64FromText(text) });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      // The previous answer goes: under a new error it would read as the answer to what was just typed.
      setPetId(undefined);
      input.current?.focus();
      return;
    }
    setError(undefined);
    setPetId(parsed.data.petId);
  };

  const notFound = apiErrorOf(pet.error)?.code === 'pet_not_found';
  return (
    <section aria-labelledby="lookup-heading">
      <h2 id="lookup-heading">Look up a pet</h2>
      {DEPRECATED === undefined ? null : (
        <p className="deprecation" id="lookup-deprecation">
          <strong>Deprecated:</strong> looking up one pet uses getPet, which stops working on{' '}
          <time dateTime={DEPRECATED.sunset}>{longDate(DEPRECATED.sunset)}</time> (deprecated since{' '}
          <time dateTime={DEPRECATED.since}>{longDate(DEPRECATED.since)}</time>). Use the list with a status
          filter ({DEPRECATED.replacement}) instead.
        </p>
      )}
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor="lookup-id">Pet id</label>
          <input
            id="lookup-id"
            ref={input}
            inputMode="numeric"
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-invalid={error !== undefined}
            aria-describedby={
              error === undefined ? 'lookup-deprecation' : 'lookup-id-error lookup-deprecation'
            }
            autoComplete="off"
          />
          {error === undefined ? null : (
            <p className="field-error" id="lookup-id-error">
              Pet id {error}
            </p>
          )}
        </div>
        <button type="submit">Look up</button>
      </form>
      {petId === undefined ? null : (
        <div ref={result} tabIndex={-1} className="lookup-result" aria-live="polite">
          {pet.isFetching ? (
            <p>Looking up pet {String(petId)}…</p>
          ) : pet.data !== undefined ? (
            <dl>
              <dt>Id</dt>
              <dd className="int64">{String(pet.data.id)}</dd>
              <dt>Name</dt>
              <dd>{pet.data.name}</dd>
              <dt>Category id</dt>
              <dd className="int64">{String(pet.data.categoryId)}</dd>
              <dt>Status</dt>
              <dd>{pet.data.status ?? '—'}</dd>
            </dl>
          ) : notFound ? (
            <p>No pet has id {String(petId)}.</p>
          ) : (
            <p role="alert">Could not look up the pet: {apiErrorOf(pet.error)?.message ?? 'no answer'}.</p>
          )}
        </div>
      )}
    </section>
  );
}
