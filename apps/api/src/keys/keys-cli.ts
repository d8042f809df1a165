// `pnpm keys create <name>` | `pnpm keys list` | `pnpm keys revoke <id>`: manages the API keys stored in the
// database the app uses (DATABASE_URL, or the embedded PGlite in DATA_DIR). Applies pending migrations first.
import { PetIdPathSchema } from '@petstore/schema';
import { ConfigError, parseConfig } from '../config.js';
import { DataDirectoryInUse } from '../config-error.js';
import { withConfiguredDatabase } from '../db/with-configured-database.js';
import { createApiKeysService, keyNameProblem } from './api-keys.service.js';

const USAGE = 'usage: pnpm keys create <name> | pnpm keys list | pnpm keys revoke <id>';
/** The number of arguments of each command, itself included. */
const ARITY: Readonly<Record<string, number>> = { create: 2, list: 1, revoke: 2 };

/** Says on stderr why the command did nothing; returns its exit code. */
const refuse = (message: string, code = 2) => {
  console.error(message);
  return code;
};

async function run(args: string[]): Promise<number> {
  const [command = '', argument = ''] = args;
  // Each command with exactly its arguments: an extra one is refused, never ignored.
  if (!Object.hasOwn(ARITY, command) || args.length !== ARITY[command]) return refuse(USAGE);
  // The arguments are judged before the database is opened: a bad one is exit 2, whatever the database's state.
  const nameProblem = command === 'create' ? keyNameProblem(argument) : undefined;
  if (nameProblem !== undefined) return refuse(`key name ${JSON.stringify(argument)}: ${nameProblem}`);
  // An id is a positive int64 (the column's type), read as a petId path segment is (the API's one integer rule):
  // `0`, `02` and digits past int64 name no key rather than fail in the database.
  const id = PetIdPathSchema.safeParse(argument).data;
  if (command === 'revoke' && id === undefined)
    return refuse(`not a key id: ${argument} (see pnpm keys list)`);
  return withConfiguredDatabase(parseConfig(process.env), async (database) => {
    const keys = createApiKeysService(database.prisma);
    if (command === 'create') {
      const issued = await keys.create(argument);
      console.log(
        `created key ${issued.id} "${issued.name}". It is shown once; store it now:\n${issued.key}`,
      );
    } else if (command === 'revoke' && id !== undefined) {
      const revoked = await keys.revoke(id);
      if (revoked === undefined) return refuse(`no key with id ${argument}`, 1);
      console.log(
        `revoked key ${revoked.id} "${revoked.name}" (${revoked.prefix}…) at ${revoked.revokedAt?.toISOString()}`,
      );
    } else {
      const rows = await keys.list();
      if (rows.length === 0) console.log('no keys issued (keys from API_KEYS are not listed)');
      for (const key of rows) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
        console.log(
          `${key.id}\t${key.prefix}…\t${key.name}\tcreated ${key.createdAt.toISOString()}\t${state}`,
        );
      }
    }
    return 0;
  });
}

process.exitCode = await run(process.argv.slice(2)).catch((error: unknown) =>
  refuse(
    // The embedded database serves one process: keys for a running api are issued through PostgreSQL.
    error instanceof DataDirectoryInUse
      ? `${error.message} To issue or revoke keys, stop the api first, or run it on PostgreSQL (DATABASE_URL), where keys are issued and revoked while it runs.`
      : error instanceof ConfigError
        ? error.message
        : `keys: ${(error as Error).message}`,
    1,
  ),
);
