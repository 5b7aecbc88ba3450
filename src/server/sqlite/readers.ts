/**
 * Reader threads for lists, each with its own connection (WAL lets readers run beside the writer),
 * so that a list that reads many rows leaves the event loop free for everything else.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import type { Condition, ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { type Budget, OverBudget, remainingMs } from '../budget.js';
import type { RecordPage, Store } from '../store.js';
import type { SqliteStore } from './index.js';
import type { CheckpointRequest, ListReply, ListRequest } from './reader-worker.js';
import { packQuery, STOP_SLOTS } from './wire.js';

/**
 * The worker's module: bundled beside the bundle (dist/bundle/reader-worker.cjs, what the package
 * ships), beside this one when built by tsc (dist/server/sqlite), and the built one when this runs
 * from the sources (tests).
 */
function workerFile(): string {
  const candidates = ['./reader-worker.cjs', './reader-worker.js', '../../../dist/server/sqlite/reader-worker.js'];
  for (const c of candidates) {
    const path = fileURLToPath(new URL(c, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('the reader thread module (dist/server/sqlite/reader-worker.js) is missing: run npm run build');
}

/**
 * Lists a thread is given at once: the one it runs and the next ones of the same account, so that
 * it never waits for the event loop between two (a list of another account never waits behind one).
 */
const DEPTH = 8;

/**
 * A reader thread's V8 heap: its young generation at most this many MB. A thread's lists leave
 * short-lived garbage (rows, their JSON, the statements its cache drops, whose SQLite memory V8
 * does not see until it collects them), and V8 lets a young generation grow to 48 MB a thread and
 * keeps it: with three threads, a bound of some 130 MB on memory no list needs. With 4 MB, a
 * thread collects sooner and holds a few MB of it.
 */
const READER_YOUNG_GENERATION_MB = 4;

/** A list posted to a thread, until the thread answers it (even after its client was answered). */
interface Posted {
  readonly id: number;
  readonly accountId: number;
  readonly done: (reply: ListReply | Error) => void;
}

interface Thread {
  readonly worker: Worker;
  readonly cells: Int32Array;
  /** Its lists, in the order posted: the first one runs. */
  lists: Posted[];
  /** The id of its next list (each thread counts its own, so that STOP_SLOTS is enough). */
  next: number;
  /** Whether it has answered at least once (a thread that fails before that is not started again). */
  answered: boolean;
}

interface Waiting {
  readonly accountId: number;
  readonly post: (thread: Thread) => void;
}

/**
 * Reader threads that run lists one after another. A list goes to a thread that holds none, or
 * only lists of its own account and room for one more (DEPTH); no account holds more than all the
 * threads but one, so that another account's list always finds one (with two or more); else it
 * waits, and the waiting lists go in the order they came, each as soon as its account may. When
 * a list's budget ends (or its client goes away) it is answered at once, and its thread told to
 * stop it (pm_budget() in its SQL throws at the next row it asks); the thread then takes the next.
 */
export class ReaderPool {
  private threads: Thread[] = [];
  private waiting: Waiting[] = [];
  private closing = false;
  private readonly path = workerFile();

  constructor(
    private readonly file: string,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.threads.push(this.start());
  }

  get size(): number {
    return this.threads.length;
  }

  /** Threads answering a list now. */
  get busy(): number {
    return this.threads.filter((t) => t.lists.length > 0).length;
  }

  private start(): Thread {
    const cells = new Int32Array(new SharedArrayBuffer(4 * (STOP_SLOTS + 1)));
    const thread: Thread = {
      worker: new Worker(this.path, {
        workerData: { file: this.file, cells: cells.buffer },
        resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_GENERATION_MB },
      }),
      cells,
      lists: [],
      next: 1,
      answered: false,
    };
    thread.worker.on('message', (reply: ListReply) => {
      thread.answered = true;
      thread.lists.find((l) => l.id === reply.id)?.done(reply);
    });
    // A thread that dies fails only its own lists; it is started again if it had ever answered
    // (one that cannot start would only die again), so later lists never wait on a dead thread.
    const died = (e: unknown) => {
      if (this.closing || !this.threads.includes(thread)) return;
      this.threads = this.threads.filter((t) => t !== thread);
      if (thread.answered) this.threads.push(this.start());
      for (const l of thread.lists) l.done(e instanceof Error ? e : new Error(String(e)));
      this.pump();
    };
    thread.worker.on('error', died);
    thread.worker.on('exit', (code) => died(new Error(`a reader thread stopped (exit code ${code})`)));
    return thread;
  }

  /** A thread that may take a list of `accountId` now, if any: the one with fewest lists. */
  private threadFor(accountId: number): Thread | undefined {
    const held = this.threads.filter((t) => t.lists.some((l) => l.accountId === accountId)).length;
    let best: Thread | undefined;
    for (const t of this.threads) {
      const own = t.lists.length > 0 && t.lists.every((l) => l.accountId === accountId);
      const free = t.lists.length === 0 && held < Math.max(1, this.threads.length - 1);
      if ((free || (own && t.lists.length < DEPTH)) && (!best || t.lists.length < best.lists.length)) best = t;
    }
    return best;
  }

  /** Posts the waiting lists that may go now, in the order they came. */
  private pump(): void {
    for (const w of [...this.waiting]) {
      const thread = this.threadFor(w.accountId);
      if (!thread) continue;
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.post(thread);
    }
  }

  /**
   * A list, on a thread in its account's turn; stopped when `budget` is spent: OverBudget, begun
   * (it ran on its thread) or not (it waited all along).
   */
  list(accountId: number, r: ResourceDef, query: ListQuery, budget?: Budget): Promise<RecordPage> {
    if (!this.threads.length) return Promise.reject(new Error('no reader thread is running'));
    return new Promise((resolve, reject) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      let posted: { thread: Thread; id: number } | undefined;
      const answer = (fn: () => void) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        budget?.signal?.removeEventListener('abort', stop);
        fn();
      };
      // Answered now; a list posted stays on its thread until the thread has stopped it.
      const stop = () => {
        if (!posted) {
          this.waiting.splice(this.waiting.indexOf(waiting), 1);
          return answer(() => reject(new OverBudget(false)));
        }
        const { thread, id } = posted;
        Atomics.store(thread.cells, id % STOP_SLOTS, id);
        const begun = Atomics.load(thread.cells, STOP_SLOTS) >= id;
        answer(() => reject(new OverBudget(begun)));
      };
      const waiting: Waiting = {
        accountId,
        post: (thread) => {
          const id = thread.next++;
          posted = { thread, id };
          thread.lists.push({
            id,
            accountId,
            done: (reply) => {
              thread.lists = thread.lists.filter((l) => l.id !== id);
              answer(() => {
                if (reply instanceof Error) reject(reply);
                else if ('ok' in reply) resolve(jsonPage(reply.ok));
                else if (reply.error.budget) reject(new OverBudget(true));
                else if (reply.error.status !== undefined)
                  reject(new ApiError(reply.error.status, reply.error.message, reply.error.errors));
                else reject(new Error(reply.error.message));
              });
              this.pump();
            },
          });
          // When its budget ends, by the clock both threads read (each has its own performance.now()).
          const ends = budget ? Date.now() + remainingMs(budget) : undefined;
          const message: ListRequest = { id, accountId, path: r.path, query: packQuery(query), ends };
          thread.worker.postMessage(message);
        },
      };
      if (budget) {
        timer = setTimeout(stop, remainingMs(budget));
        budget.signal?.addEventListener('abort', stop, { once: true });
      }
      this.waiting.push(waiting);
      this.pump();
      if (budget?.signal?.aborted) stop();
    });
  }

  /**
   * Checkpoints the WAL (PASSIVE: what no reader still needs) on the thread holding fewest lists,
   * after the lists it holds: off the server's event loop.
   */
  checkpoint(): void {
    const thread = [...this.threads].sort((a, b) => a.lists.length - b.lists.length)[0];
    thread?.worker.postMessage({ checkpoint: true } satisfies CheckpointRequest);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/** A page whose records came as JSON text: parsed only if something asks for them as records. */
function jsonPage(ok: { total: number; json: string; count: number }): RecordPage {
  let records: RecordPage['records'] | undefined;
  return {
    total: ok.total,
    json: { text: ok.json, count: ok.count },
    get records() {
      records ??= JSON.parse(ok.json) as RecordPage['records'];
      return records;
    },
  };
}

/**
 * Records an account must have in a table before its lists with only simple filters go to a
 * reader thread: below it, such a list is quick on the event loop (its filters are looked up in
 * indexes), and the hop to a thread would cost more than it saves.
 */
const THREADED_FROM = 20_000;

/**
 * Whether a list may read many rows whatever the table's size: a text filter (its cost depends on
 * the value and on what the rows hold), a relational filter or a custom field's (a subquery over
 * another table), at any depth.
 */
function searches(conditions: readonly Condition[]): boolean {
  return conditions.some((c) => c.kind === 'fuzzy' || c.kind === 'custom' || c.kind === 'relation');
}

/**
 * A store whose lists that may read many rows are answered by reader threads: those that search
 * (`searches`), and filtered lists of large tables; everything else as `store` does it. An
 * unfiltered list costs its page alone (its total and a deep page's start are kept by the
 * schema's triggers), so it stays on the server's connection and never queues behind long lists.
 */
export function withReaders(store: SqliteStore, pool: ReaderPool, from = THREADED_FROM): Store {
  // Its close is the store's: the pool is the caller's to close.
  return {
    ...store,
    list: (accountId, r, q, budget) =>
      searches(q.conditions) || (q.conditions.length && store.recordCount(accountId, r) >= from)
        ? pool.list(accountId, r, q, budget)
        : store.list(accountId, r, q, budget),
  };
}
