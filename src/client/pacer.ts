/**
 * Pacing by the server's rate-limit headers (X-RateLimit-Limit, -Remaining, and -Reset in epoch
 * seconds), shared by every request of one HttpClient, so that a bulk job with several requests
 * in flight paces as one. The schedule, and why it is the fastest the limit allows without a
 * 429, is in docs/faults.md ("Pacing by the rate limit"). A wait longer than `maxWaitMs` is not
 * made: the request goes, and the server's answer (a 429 with its Retry-After) says what happened.
 *
 * Pure but for the clock, which is injected (tests use a fake one).
 */
import type { ResponseLike } from './errors.js';

export interface PacerClock {
  now(): number;
  /** Resolves after `ms`; rejects (with the signal's reason) when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: PacerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export function abortReason(signal: AbortSignal): Error {
  const r = signal.reason;
  return r instanceof Error ? r : Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
}

interface PacerOptions {
  readonly clock?: PacerClock;
  /** Sent this long after the window's reset, against clock granularity (ms). */
  readonly marginMs?: number;
  /** A wait longer than this is not made (ms). */
  readonly maxWaitMs?: number;
  readonly debug?: ((line: string) => void) | undefined;
  /** Told of each wait of a second or more, in words for a person ("waiting 52 s: ..."). */
  readonly notice?: ((line: string) => void) | undefined;
}

/** One request's place in the pacer, from acquire() to release(). */
export interface Ticket {
  readonly seq: number;
  readonly sentAt: number;
}

/** What the pacer reads from a response. */
export type PacerResponse = Pick<ResponseLike, 'status' | 'headers'>;

interface Window {
  readonly limit: number | undefined;
  /** The lowest Remaining reported for this window. */
  readonly remaining: number;
  /** When the window resets, on the local clock (ms). */
  readonly resetAt: number;
  /** The request whose answer reported `remaining` (to order answers without a Reset). */
  readonly seq: number;
  /** No Reset header: resetAt is assumed. */
  readonly assumed: boolean;
}

const WAIT_FOR_ANSWER = Number.POSITIVE_INFINITY;
/** The window assumed when a server gives Limit and Remaining but no Reset (ms). */
const FALLBACK_WINDOW_MS = 60_000;

function int(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d{1,15}\s*$/.test(v)) return undefined;
  return Number(v);
}

/** Retry-After as milliseconds from `now`: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export class Pacer {
  private readonly clock: PacerClock;
  private readonly marginMs: number;
  private readonly maxWaitMs: number;
  private lastNotice: number | undefined;
  private seq = 0;
  /** Requests sent and not answered yet. */
  private readonly inflight = new Set<Ticket>();
  /** Has any answer come back yet? Until one has, one request at a time. */
  private answered = false;
  private window: Window | undefined;
  private blockedUntil = 0;
  /** Estimated server clock minus local clock, when they differ by more than a second or two. */
  private skew: number | undefined;
  /** The waiting acquire() calls: release() wakes them all. */
  private wake: (() => void)[] = [];
  private lastSaid = '';

  constructor(private readonly opts: PacerOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.marginMs = opts.marginMs ?? 100;
    this.maxWaitMs = opts.maxWaitMs ?? 120_000;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /** What the pacer knows of the current window, for tests. */
  get state(): Partial<Window> {
    return this.window ?? {};
  }

  /**
   * How long the next request must wait (ms): 0 to go now, a number of ms to wait (less if an
   * answer arrives first), or Infinity to wait for an answer.
   */
  delay(): number {
    const now = this.clock.now();
    if (now < this.blockedUntil) return this.blockedUntil - now;
    if (!this.answered) return this.inflight.size === 0 ? 0 : WAIT_FOR_ANSWER;
    const w = this.window;
    if (!w) return 0;
    const opensAt = w.resetAt + this.marginMs;
    if (now >= opensAt) {
      // A new window: one request until its answer tells the room in it.
      for (const t of this.inflight) if (t.sentAt >= opensAt) return WAIT_FOR_ANSWER;
      return 0;
    }
    // Every request in flight may still be counted against the room: even one sent before the
    // answer that reported it may reach the server after it, on another connection. Counting one
    // twice only holds the next request back until its answer comes.
    const room = w.remaining - this.inflight.size;
    return room > 0 ? 0 : opensAt - now;
  }

  /** Waits until a request may be sent, and counts it as in flight. */
  async acquire(signal?: AbortSignal): Promise<Ticket> {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      let d = this.delay();
      if (d > this.maxWaitMs && d !== WAIT_FOR_ANSWER) {
        this.say(`* rate limit: the wait (${seconds(d)}) is longer than pm waits; sending anyway`);
        d = 0;
      }
      if (d <= 0) {
        const t: Ticket = { seq: ++this.seq, sentAt: this.clock.now() };
        this.inflight.add(t);
        return t;
      }
      if (d !== WAIT_FOR_ANSWER) {
        const w = this.window;
        const why =
          this.clock.now() < this.blockedUntil
            ? 'the server asked pm to wait (Retry-After)'
            : `${w?.remaining ?? 0}${w?.limit !== undefined ? ` of ${w.limit}` : ''} requests left in this window, and those are in flight`;
        this.say(`* rate limit: ${why}; waiting ${seconds(d)}`, Math.round((this.clock.now() + d) / 100));
        // A person at a terminal is told once per wait, when it is long enough to wonder about.
        const until = Math.round((this.clock.now() + d) / 1000);
        if (d >= 1000 && this.opts.notice && until !== this.lastNotice) {
          this.lastNotice = until;
          this.opts.notice(
            `waiting ${Math.ceil(d / 1000)} s: rate limit${w?.limit !== undefined ? ` ${w.limit} per window` : ''} (${why})`,
          );
        }
      }
      await this.waitFor(d, signal);
    }
  }

  /** The request is done: `res` is its answer, or undefined when it got none. */
  release(t: Ticket, res?: PacerResponse): void {
    this.inflight.delete(t);
    // No answer (a network error) teaches nothing; the next request may try.
    if (res) {
      this.answered = true;
      this.observe(t, res);
    }
    for (const wake of this.wake.splice(0)) wake();
  }

  private observe(t: Ticket, res: PacerResponse): void {
    const now = this.clock.now();
    const h = res.headers;
    if (res.status === 429) {
      // Every request is held back until then (release() wakes the waiting ones).
      const after = parseRetryAfter(h['retry-after'], now);
      if (after !== undefined) this.blockedUntil = Math.max(this.blockedUntil, now + after);
    }
    const remaining = int(h['x-ratelimit-remaining']);
    if (remaining === undefined) return;
    const limit = int(h['x-ratelimit-limit']);
    const reset = int(h['x-ratelimit-reset']);
    const serverNow = h.date ? Date.parse(h.date) : Number.NaN;
    if (Number.isFinite(serverNow)) {
      // The Date header is truncated to the second: the largest estimate is the closest one.
      const est = serverNow - now;
      if (Math.abs(est) > 2000 || this.skew !== undefined) this.skew = Math.max(this.skew ?? est, est);
    }
    const assumed = reset === undefined;
    const resetAt = assumed
      ? now + FALLBACK_WINDOW_MS / Math.max(1, limit ?? 60)
      : reset < 1_000_000_000
        ? now + reset * 1000 // seconds from now, as some servers send it
        : reset * 1000 - (this.skew ?? 0);
    const w = this.window;
    const newer =
      !w ||
      (assumed || w.assumed
        ? t.seq > w.seq || now >= w.resetAt + this.marginMs
        : resetAt > w.resetAt || (resetAt === w.resetAt && remaining < w.remaining));
    if (newer) this.window = { limit, remaining, resetAt, seq: t.seq, assumed };
  }

  /** Waits `ms` (Infinity: no timer), or less: an answer (release) or the caller's signal ends it. */
  private async waitFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const inner = new AbortController();
    const stop = () => inner.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.wake.push(stop);
    const stopped = new Promise<void>((resolve) => inner.signal.addEventListener('abort', () => resolve()));
    try {
      const racers: Promise<void>[] = [stopped];
      if (ms !== WAIT_FOR_ANSWER) racers.push(this.clock.sleep(ms, inner.signal).catch(() => {}));
      await Promise.race(racers);
    } finally {
      inner.abort();
      signal?.removeEventListener('abort', stop);
      this.wake = this.wake.filter((f) => f !== stop);
    }
    if (signal?.aborted) throw abortReason(signal);
  }

  /** A debug line, once for each distinct reason. */
  private say(line: string, key: unknown = line): void {
    const k = `${line.split(';')[0]}|${String(key)}`;
    if (k === this.lastSaid) return;
    this.lastSaid = k;
    this.opts.debug?.(line);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)}s`;
}
