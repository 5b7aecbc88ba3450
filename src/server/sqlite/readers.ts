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
import { type Budget, FairQueue, OverBudget, remainingMs } from '../budget.js';
import type { RecordPage, Store } from '../store.js';
import type { SqliteStore } from './index.js';
import type { ListReply, ListRequest } from './reader-worker.js';

/**
 * The worker's module: beside this one when built by tsc (dist/server/sqlite), in dist/server/sqlite
 * from the bundle (dist/bundle), and the built one when this runs from the sources (tests).
 */
function workerFile(): string {
  const candidates = [
    './reader-worker.js',
    '../server/sqlite/reader-worker.js',
    '../../../dist/server/sqlite/reader-worker.js',
  ];
  for (const c of candidates) {
    const path = fileURLToPath(new URL(c, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('the reader thread module (dist/server/sqlite/reader-worker.js) is missing: run npm run build');
}

interface Thread {
  readonly worker: Worker;
  /** Set to 1 to stop the list it runs (pm_budget() reads it there); 0 when a list is posted. */
  readonly stop: Int32Array;
  /** The list it runs: one at a time, posted when the thread is free. */
  running?: { readonly id: number; readonly done: (reply: ListReply | Error) => void } | undefined;
  /** Whether it has answered at least once (a thread that fails before that is not started again). */
  answered: boolean;
}

/**
 * Reader threads, each running one list at a time. A list waits for a free one in a FairQueue
 * (budget.ts), so that one account's long lists never take every thread; when its budget ends
 * (or its client goes away) it is answered at once, and the thread is told to stop it (pm_budget()
 * in its SQL throws at the next row it asks), then takes the next list.
 */
export class ReaderPool {
  private threads: Thread[] = [];
  private next = 1;
  private closing = false;
  private readonly path = workerFile();
  private readonly queue: FairQueue;

  constructor(
    private readonly file: string,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.threads.push(this.start());
    this.queue = new FairQueue(count);
  }

  get size(): number {
    return this.threads.length;
  }

  private start(): Thread {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const thread: Thread = {
      worker: new Worker(this.path, { workerData: { file: this.file, stop: stop.buffer } }),
      stop,
      answered: false,
    };
    thread.worker.on('message', (reply: ListReply) => {
      thread.answered = true;
      if (thread.running?.id === reply.id) thread.running.done(reply);
    });
    // A thread that dies fails only its own list; it is started again if it had ever answered
    // (one that cannot start would only die again), so later lists never wait on a dead thread.
    const died = (e: unknown) => {
      if (this.closing || !this.threads.includes(thread)) return;
      this.threads = this.threads.filter((t) => t !== thread);
      if (thread.answered) this.threads.push(this.start());
      else this.queue.resize(this.threads.length);
      thread.running?.done(e instanceof Error ? e : new Error(String(e)));
    };
    thread.worker.on('error', died);
    thread.worker.on('exit', (code) => died(new Error(`a reader thread stopped (exit code ${code})`)));
    return thread;
  }

  /** A list, on a free thread, in its account's turn; stopped when `budget` is spent. */
  async list(accountId: number, r: ResourceDef, query: ListQuery, budget?: Budget): Promise<RecordPage> {
    const release = await this.queue.acquire(accountId, budget?.signal);
    const thread = this.threads.find((t) => !t.running);
    if (!thread) {
      release();
      throw new Error('no reader thread is running');
    }
    const id = this.next++;
    return new Promise((resolve, reject) => {
      let answered = false;
      const answer = (fn: () => void) => {
        if (answered) return;
        answered = true;
        budget?.signal?.removeEventListener('abort', stop);
        fn();
      };
      // Answered now; the thread is free once it has stopped (its reply is then dropped).
      const stop = () => {
        Atomics.store(thread.stop, 0, 1);
        answer(() => reject(new OverBudget(true)));
      };
      thread.running = {
        id,
        done: (reply) => {
          thread.running = undefined;
          release();
          answer(() => {
            if (reply instanceof Error) reject(reply);
            else if ('ok' in reply) resolve(reply.ok);
            else if (reply.error.budget) reject(new OverBudget(true));
            else if (reply.error.status !== undefined)
              reject(new ApiError(reply.error.status, reply.error.message, reply.error.errors));
            else reject(new Error(reply.error.message));
          });
        },
      };
      Atomics.store(thread.stop, 0, 0);
      budget?.signal?.addEventListener('abort', stop, { once: true });
      const budgetMs = budget ? remainingMs(budget) : undefined;
      thread.worker.postMessage({ id, accountId, path: r.path, query, budgetMs } satisfies ListRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/**
 * Records an account must have in a table before its lists with only simple filters go to a
 * reader thread: below it, such a list is quick on the event loop (its filters are looked up in
 * indexes), and the hop to a thread would cost more than it saves.
 */
export const THREADED_FROM = 20_000;

/**
 * Whether a list may read many rows whatever the table's size: a text filter (its cost depends on
 * the value and on what the rows hold), a relational filter or a custom field's (a subquery over
 * another table), at any depth.
 */
export function searches(conditions: readonly Condition[]): boolean {
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
