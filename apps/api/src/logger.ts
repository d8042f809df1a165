import { pino } from 'pino';
import type { LogLevel } from './config.js';

/** The destination pino writes to (sonic-boom), as far as the line blocks use it. */
interface Destination {
  write(data: string): boolean;
  flush(done?: (error?: Error) => void): void;
  flushSync(): void;
  /** Set once it is closed (sonic-boom has it; its types do not say so). */
  readonly destroyed?: boolean;
}

/** Lines are handed to the destination in blocks of at least this many characters (and every 250 ms). */
const BLOCK_LENGTH = 8 * 1024;

/**
 * Log lines gathered into blocks, then handed to the destination a block at a time. sonic-boom buffers on its own
 * (`minLength`), but by appending each line to its pending string and measuring that string
 * (`Buffer.byteLength`), which copies the whole pending buffer to flatten it on every line: with up to 8 KiB
 * pending, about 4 KB copied per request line (the 401 heap profile: about 6 of the 26 KB a request allocated).
 * Here a line is pushed on an array and the block joined once; the destination gets one string per block.
 * The order of lines is kept: every line of the logger goes through here.
 */
export class LineBlocks {
  #lines: string[] = [];
  #length = 0;

  constructor(
    private readonly destination: Destination,
    private readonly blockLength = BLOCK_LENGTH,
  ) {}

  write(line: string): boolean {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= this.blockLength) this.hand();
    return true;
  }

  /** Takes the held lines as one string (undefined when none); dropped when the destination is closed. */
  #take(): string | undefined {
    if (this.#lines.length === 0) return undefined;
    const block = this.#lines.length === 1 ? (this.#lines[0] as string) : this.#lines.join('');
    this.#lines = [];
    this.#length = 0;
    return this.destination.destroyed ? undefined : block;
  }

  /** Hands the held lines to the destination (which writes them asynchronously). */
  hand(): void {
    const block = this.#take();
    if (block !== undefined) this.destination.write(block);
  }

  /**
   * At exit, where an asynchronous write would not finish: what the destination holds, then the held lines, written
   * synchronously. The lines go in pieces too short to start an asynchronous write (the destination starts one at
   * `blockLength` bytes, its `minLength`; a piece of a third as many UTF-16 units is fewer bytes), never cut inside
   * a surrogate pair, each written with `flushSync`.
   */
  handAtExit(): void {
    const block = this.#take();
    if (block === undefined) return;
    this.destination.flushSync();
    const piece = Math.floor((this.blockLength - 1) / 3);
    for (let start = 0; start < block.length; ) {
      let end = Math.min(start + piece, block.length);
      const last = block.charCodeAt(end - 1);
      if (end < block.length && last >= 0xd800 && last <= 0xdbff) end--;
      this.destination.write(block.slice(start, end));
      this.destination.flushSync();
      start = end;
    }
  }

  /** Every line so far written out; `done` once they are (pino's `logger.flush(done)`). */
  flush(done?: (error?: Error) => void): void {
    this.hand();
    this.destination.flush(done);
  }

  flushSync(): void {
    this.hand();
    this.destination.flushSync();
  }
}

/** Every logger's blocks, handed over when the process is about to exit (see `exitHooksFirst`). */
const openBlocks = new Set<LineBlocks>();
let exitHooked = false;

/**
 * pino writes out what its destination holds when the process exits (a listener it adds when the destination is
 * made). Ours must run before it, to hand over the lines still in blocks: they are prepended to the process's
 * listeners. At `beforeExit` the event loop still runs (the lines are handed, pino then flushes); at `exit` nothing
 * asynchronous finishes, so the lines are written synchronously (`handAtExit`).
 */
function exitHooksFirst(): void {
  if (exitHooked) return;
  exitHooked = true;
  const each = (hand: (blocks: LineBlocks) => void) => () => {
    for (const blocks of openBlocks) {
      try {
        hand(blocks);
      } catch {
        // A destination already closed: nothing more can be written there.
      }
    }
  };
  // Prepended: before any other listener (pino's among them), whenever that was added.
  process.prependListener(
    'beforeExit',
    each((blocks) => blocks.hand()),
  );
  process.prependListener(
    'exit',
    each((blocks) => blocks.handAtExit()),
  );
}

/**
 * The one logger: JSON lines on stdout. Authorization headers and API keys are never passed to it; the redact
 * paths are a second line of defence should a request object ever be logged whole.
 */
export function createLogger(level: LogLevel) {
  // Written asynchronously and in blocks: a write(2) per request line showed in the 401 profile. Lines are
  // gathered up to 8 KiB (LineBlocks) and written at least every 250 ms (so a quiet server's lines still appear
  // promptly); main flushes the rest before the process exits, and whatever is left is written at exit.
  exitHooksFirst();
  const destination = pino.destination({ dest: 1, sync: false, minLength: BLOCK_LENGTH });
  const blocks = new LineBlocks(destination);
  openBlocks.add(blocks);
  setInterval(() => {
    try {
      blocks.flush();
    } catch {
      // Not ready yet, or already closed at shutdown: the next tick or main's final flush writes the lines.
    }
  }, 250).unref();
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'apiKeys'],
        censor: '[redacted]',
      },
    },
    blocks,
  );
}

export type Logger = ReturnType<typeof createLogger>;

/** Writes one access-log line: request id, method, path, status, duration in ms, and the trace id when traced. */
export type AccessLog = (
  requestId: string,
  method: string,
  path: string,
  status: number,
  ms: number,
  traceId?: string,
) => void;

const INFO = 30;

/**
 * The access log: one line per request, in the logger's format and on its (buffered, asynchronous) stream, but
 * written as a template rather than through pino's generic serialiser, which the 401 profile showed at a quarter
 * of the cost of a request. Undefined when the level leaves request lines out.
 */
export function createAccessLog(logger: Logger): AccessLog | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  if (stream === undefined) throw new Error('the logger has no stream');
  return (requestId, method, path, status, ms, traceId) => {
    // The trace id is 32 hex digits from the tracer (never from the request): safe to write unquoted.
    stream.write(
      `{"level":${INFO},"time":${Date.now()},"requestId":"${requestId}",` +
        `${traceId === undefined ? '' : `"traceId":"${traceId}",`}"method":${JSON.stringify(method)},` +
        `"path":${JSON.stringify(path)},"status":${status},"ms":${Math.round(ms * 1000) / 1000},"msg":"request"}\n`,
    );
  };
}
