import type { Check } from '../check.js';
import { authChecks } from './auth.checks.js';
import { createPetChecks } from './create-pet.checks.js';
import { eventsChecks } from './events.checks.js';
import { generatedChecks } from './generated.checks.js';
import { getPetChecks } from './get-pet.checks.js';
import { httpChecks } from './http.checks.js';
import { idempotencyChecks } from './idempotency.checks.js';
import { listPetsChecks } from './list-pets.checks.js';
import { pagingChecks } from './paging.checks.js';
import { responseChecks } from './responses.checks.js';
import { statefulChecks } from './stateful.checks.js';

/** Every check, in the order they run. The response checks read what the others received, so they come last. */
export const ALL_CHECKS: readonly Check[] = [
  ...authChecks,
  ...httpChecks,
  ...listPetsChecks,
  ...pagingChecks,
  ...createPetChecks,
  ...idempotencyChecks,
  ...getPetChecks,
  ...statefulChecks,
  ...generatedChecks,
  ...eventsChecks,
  ...responseChecks,
];
