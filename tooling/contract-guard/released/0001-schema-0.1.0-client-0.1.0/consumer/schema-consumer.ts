// Code another team writes against @petstore/schema. Each release keeps a copy (released/*/consumer/), and the
// contract guard compiles that copy against the current sources: if it stops compiling, the release breaks them.
// Only ever type-checked, never run. Extend it when a release adds something consumers will use.
import {
  type ApiError,
  ERROR_CODES,
  type ErrorCode,
  LIST_LIMIT,
  type ListPetsQueryInput,
  type NewPetInput,
  NewPetSchema,
  type OperationInput,
  type OperationOutput,
  type Pet,
  PetSchema,
  type PetStatus,
  parseJson,
  stringifyJson,
} from '@petstore/schema';

// Inputs built with every field and value the release accepted.
export const newPets: NewPetInput[] = [
  { name: 'Rex', categoryId: 1 },
  { name: 'Rex', categoryId: 9007199254740993n, status: 'available' },
  { name: 'Rex', categoryId: -1, status: 'pending' },
  { name: 'Rex', categoryId: 0, status: 'sold' },
];
export const queries: ListPetsQueryInput[] = [
  {},
  { limit: 1 },
  { limit: LIST_LIMIT.max, status: 'sold', cursor: 'c' },
];
export const createInput: OperationInput<'createPet'> = { name: 'Rex', categoryId: 2 };
export const getInput: OperationInput<'getPet'> = { petId: 7n };

// Outputs read exhaustively: a status the release did not have is a compile error here.
export function label(status: PetStatus | undefined): string {
  switch (status) {
    case 'available':
      return 'for sale';
    case 'pending':
      return 'reserved';
    case 'sold':
      return 'gone';
    case undefined:
      return 'unknown';
    default: {
      const unexpected: never = status;
      return unexpected;
    }
  }
}

export function describe(pet: Pet): string {
  const id: bigint = pet.id;
  const category: bigint = pet.categoryId;
  const name: string = pet.name;
  return `${id} ${category} ${name} ${label(pet.status)}`;
}

export function created(body: OperationOutput<'createPet'>): Pet {
  return body;
}

export function errorStatus(error: ApiError): number {
  const code: string = error.code;
  const known: ErrorCode = 'pet_not_found';
  return code === known ? ERROR_CODES[known] : error.status;
}

export function roundTrip(text: string): string {
  const pet: Pet = PetSchema.parse(parseJson(text));
  const input: NewPetInput = { name: pet.name, categoryId: pet.categoryId };
  return stringifyJson(NewPetSchema.parse(input));
}
