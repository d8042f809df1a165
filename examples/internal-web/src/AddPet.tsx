import { apiErrorOf, type Pet } from '@petstore/client';
import { PET_STATUSES } from '@petstore/schema';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { isTransient } from './connection.js';
import {
  EMPTY_DRAFT,
  type FieldErrors,
  fieldErrorsOf,
  isPetStatus,
  PET_FIELDS,
  type PetDraft,
  type PetField,
  validateDraft,
} from './pet-form.js';
import { useTRPC } from './trpc.js';

const LABELS: Record<PetField, string> = { name: 'Name', categoryId: 'Category id', status: 'Status' };

/**
 * Creates a pet. One Idempotency-Key per submission: every retry of it (the client's, TanStack Query's, or the
 * person pressing Add again after a failure without changing anything) carries the same key, so the service
 * stores the pet once. A changed form is a new submission with a new key.
 */
export function AddPet() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PetDraft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [added, setAdded] = useState<Pet>();
  const submission = useRef<{ draft: PetDraft; key: string }>(undefined);
  const fields = useRef<Partial<Record<PetField, HTMLInputElement | HTMLSelectElement | null>>>({});

  const focusFirstInvalid = (found: FieldErrors) => {
    const first = PET_FIELDS.find((field) => found[field] !== undefined);
    if (first !== undefined) fields.current[first]?.focus();
  };

  const create = useMutation(
    trpc.pets.create.mutationOptions({
      // The same variables, so the same key: a retry after a 503 or a lost answer creates nothing new.
      retry: (failures, error) => failures < 3 && isTransient(error),
      onSuccess: async (pet) => {
        submission.current = undefined;
        setDraft(EMPTY_DRAFT);
        setAdded(pet);
        fields.current.name?.focus();
        await queryClient.invalidateQueries(trpc.pets.page.pathFilter());
      },
      onError: (error) => {
        const apiError = apiErrorOf(error);
        const mapped = apiError === undefined ? {} : fieldErrorsOf(apiError);
        setErrors(mapped);
        const named = Object.keys(mapped).length > 0;
        setFormError(
          named
            ? undefined
            : `The pet was not added: ${apiError?.message ?? 'the Pet Store API did not answer'}.`,
        );
        focusFirstInvalid(mapped);
      },
    }),
  );

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(undefined);
    setFormError(undefined);
    const result = validateDraft(draft);
    if ('errors' in result) {
      setErrors(result.errors);
      focusFirstInvalid(result.errors);
      return;
    }
    setErrors({});
    const same = submission.current !== undefined && sameDraft(submission.current.draft, draft);
    if (!same) submission.current = { draft, key: crypto.randomUUID() };
    create.mutate({ ...result.pet, idempotencyKey: submission.current?.key });
  };

  const edit = (field: PetField, value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    if (errors[field] !== undefined) setErrors(({ [field]: _fixed, ...rest }) => rest);
  };

  const describedBy = (field: PetField) => (errors[field] === undefined ? undefined : `${field}-error`);
  /** What every control of the form carries: its id, its place in `fields` (for focus), its error state. */
  const controlProps = (field: PetField) => ({
    id: field,
    ref: (element: HTMLInputElement | HTMLSelectElement | null) => {
      fields.current[field] = element;
    },
    'aria-invalid': errors[field] !== undefined,
    'aria-describedby': describedBy(field),
  });
  const fieldError = (field: PetField) =>
    errors[field] === undefined ? null : (
      <p className="field-error" id={`${field}-error`}>
        {LABELS[field]} {errors[field]}
      </p>
    );

  return (
    <section aria-labelledby="add-heading">
      <h2 id="add-heading">Add a pet</h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor="name">{LABELS.name}</label>
          <input
            {...controlProps('name')}
            value={draft.name}
            onChange={(event) => edit('name', event.target.value)}
            autoComplete="off"
          />
          {fieldError('name')}
        </div>
        <div className="field">
          <label htmlFor="categoryId">{LABELS.categoryId}</label>
          <input
            {...controlProps('categoryId')}
            inputMode="numeric"
            value={draft.categoryId}
            onChange={(event) => edit('categoryId', event.target.value)}
            autoComplete="off"
          />
          {fieldError('categoryId')}
        </div>
        <div className="field">
          <label htmlFor="status">{LABELS.status}</label>
          <select
            {...controlProps('status')}
            value={draft.status}
            onChange={(event) => edit('status', isPetStatus(event.target.value) ? event.target.value : '')}
          >
            <option value="">(none)</option>
            {PET_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
          {fieldError('status')}
        </div>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add pet'}
        </button>
        <div role="status" className="form-status">
          {create.isPending && create.failureCount > 0 ? 'Still adding: trying again…' : null}
          {added === undefined ? null : `Added ${added.name} as pet ${String(added.id)}.`}
        </div>
        {formError === undefined ? null : (
          <p role="alert" className="form-error">
            {formError}
          </p>
        )}
      </form>
    </section>
  );
}

const sameDraft = (a: PetDraft, b: PetDraft) =>
  a.name === b.name && a.categoryId === b.categoryId && a.status === b.status;
