import { useSyncExternalStore } from 'react';
import { AddPet } from './AddPet.js';
import { BrowsePets } from './BrowsePets.js';
import type { ConnectionMonitor } from './connection.js';
import { LookUpPet } from './LookUpPet.js';

export function App({ connection }: { connection: ConnectionMonitor }) {
  const state = useSyncExternalStore(connection.subscribe, connection.current);
  return (
    <>
      <header>
        <h1>Pet Store — staff</h1>
        {/* Always in the page, so that screen readers announce the change when it fills. */}
        <div role="status" className={state.state === 'ok' ? 'connection' : 'connection retrying'}>
          {state.state === 'ok'
            ? null
            : `The Pet Store API is unavailable${state.status === undefined ? '' : ` (${state.status})`}. ` +
              'Retrying by itself; nothing is lost.'}
        </div>
      </header>
      <main>
        <div className="columns">
          <AddPet />
          <LookUpPet />
        </div>
        <BrowsePets />
      </main>
    </>
  );
}
