/**
 * A request's budget (docs/security.md, "What one request may cost"): the time a list may take,
 * counted from when it is asked for, and ended early when its client goes away. Stores stop a
 * list when its budget is spent (SQLite: pm_budget() in its SQL, asked on the rows a text filter
 * tests; PostgreSQL: statement_timeout, and a cancel). What lists run on is shared between accounts
 * so that one account's long lists always leave some for the others: reader threads by their
 * pool (sqlite/readers.ts), database connections by a FairQueue.
 */

/** How long a list may take on `pm serve` unless told otherwise (`pm serve --query-budget`). */
export const DEFAULT_QUERY_BUDGET_MS = 10_000;

/** What a list may spend. */
export interface Budget {
  /** The whole budget (ms), for messages. */
  readonly ms: number;
  /** When it is spent: performance.now() of the thread that made it. */
  readonly deadline: number;
  /** Aborted when the client has gone away. */
  readonly signal?: AbortSignal | undefined;
}

/** A budget of `ms` from now, which also ends when `clientGone` aborts. */
export const budgetOf = (ms: number, clientGone?: AbortSignal): Budget => ({
  ms,
  deadline: performance.now() + ms,
  signal: clientGone,
});

/**
 * A list stopped before its answer: its budget was spent (or its client went away). `started`
 * says whether it had begun; a list that never started waited its whole budget for its turn.
 */
export class OverBudget extends Error {
  constructor(
    readonly started: boolean,
    message = started ? 'the list was stopped: its budget is spent' : 'the list waited its whole budget for its turn',
  ) {
    super(message);
    this.name = 'OverBudget';
  }
}

/** The time left of a budget (ms), never below 0. */
export const remainingMs = (b: Budget): number => Math.max(0, b.deadline - performance.now());

/**
 * A signal that aborts when the budget is spent or its client goes away, for a store that waits
 * (a reader thread, the database); `done()` clears its timer. A list answered at once on the event
 * loop needs none: pm_budget() reads the deadline itself.
 */
export function spending(b: Budget | undefined): { readonly signal?: AbortSignal; done(): void } {
  if (!b) return { done() {} };
  const spent = new AbortController();
  const timer = setTimeout(() => spent.abort(new OverBudget(true)), remainingMs(b));
  const gone = () => spent.abort(b.signal?.reason);
  b.signal?.addEventListener('abort', gone, { once: true });
  if (b.signal?.aborted) gone();
  return {
    signal: spent.signal,
    done() {
      clearTimeout(timer);
      b.signal?.removeEventListener('abort', gone);
    },
  };
}

interface Waiter {
  readonly account: number;
  readonly grant: (release: () => void) => void;
}

/**
 * Slots (reader threads, database connections) shared between accounts. A list takes one, in
 * turn; no account holds more than `perAccount` at once (by default all but one, so another
 * account's list finds one free), and when one is freed it goes to the waiting account that
 * holds the fewest, the earliest first among equals. A list whose budget ends while it waits
 * leaves the queue (OverBudget, not started).
 */
export class FairQueue {
  private readonly running = new Map<number, number>();
  private readonly waiting: Waiter[] = [];
  private busy = 0;

  constructor(
    private readonly slots: number,
    private readonly perAccount = Math.max(1, slots - 1),
  ) {}

  /** Waits for a slot; the function returned frees it (once). */
  acquire(account: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new OverBudget(false));
    return new Promise((resolve, reject) => {
      const leave = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new OverBudget(false));
      };
      const waiter: Waiter = {
        account,
        grant: (release) => {
          signal?.removeEventListener('abort', leave);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
      this.next();
    });
  }

  /**
   * A slot now, for something that can do without one (a streamed upload, which otherwise waits
   * in a spool file): given only when one is free, no list waits for one, and the account holds
   * fewer than `most` (and `perAccount`); undefined otherwise.
   */
  tryAcquire(account: number, most: number): (() => void) | undefined {
    if (this.busy >= this.slots || this.waiting.length > 0) return undefined;
    if (this.held(account) >= Math.min(most, this.perAccount)) return undefined;
    return this.take(account);
  }

  private held(account: number): number {
    return this.running.get(account) ?? 0;
  }

  /** A slot for `account`, and the function that frees it (once). */
  private take(account: number): () => void {
    this.busy++;
    this.running.set(account, this.held(account) + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.busy--;
      const n = this.held(account) - 1;
      if (n > 0) this.running.set(account, n);
      else this.running.delete(account);
      this.next();
    };
  }

  /** Grants free slots to the waiters whose turn it is. */
  private next(): void {
    while (this.busy < this.slots) {
      let pick: Waiter | undefined;
      for (const w of this.waiting)
        if (this.held(w.account) < this.perAccount && (!pick || this.held(w.account) < this.held(pick.account)))
          pick = w;
      if (!pick) return;
      this.waiting.splice(this.waiting.indexOf(pick), 1);
      pick.grant(this.take(pick.account));
    }
  }
}
