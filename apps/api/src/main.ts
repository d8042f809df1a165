// The api process's entry point (`pnpm start`, `pnpm dev`). Node's on-disk compile cache goes on before the
// server's modules load, so that a restart reuses V8's compiled code (docs/operations.md, "Start-up").
import module from 'node:module';

// Optional call: on a Node without it, start.ts still gets to say which Node it needs.
module.enableCompileCache?.();
await import('./start.js');
