// The api process's entry point (`pnpm start`, `pnpm dev`). Node's on-disk compile cache goes on first, before
// the server's modules load: a restart then reuses V8's compiled code instead of compiling every module again
// (about 30 ms of a 350 ms start-up on the 2-core machine of docs/performance.md). It is Node's own, silent
// mechanism: `NODE_COMPILE_CACHE=<dir>` moves it (default: <os tmpdir>/node-compile-cache), and
// `NODE_DISABLE_COMPILE_CACHE=1` turns it off; a directory it cannot write costs nothing but the speed-up.
import module from 'node:module';

// Optional call: on a Node without it, start.ts still gets to say which Node it needs.
module.enableCompileCache?.();
await import('./start.js');
