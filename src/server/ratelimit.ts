/**
 * Per-user rate limiting, with the hosted service's headers: X-RateLimit-Limit,
 * X-RateLimit-Remaining, X-RateLimit-Reset (epoch seconds), and Retry-After (seconds) on a refused
 * request.
 */

export interface RateLimit {
  readonly limit: number;
  readonly windowMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
}

/**
 * What the API asks of a rate limiter: count one request of what it limits (a user by its id, a
 * calendar feed by its uuid), and say whether it may pass.
 */
export interface RateLimiter<K = number> {
  hit(key: K): RateDecision | Promise<RateDecision>;
}

/** Reads `60/min`, `100/m`, `10/s`, `3600/h`, or a bare number (per minute). */
export function parseRateLimit(text: string): RateLimit {
  const m = /^\s*(\d+)\s*(?:\/\s*(s|sec|second|m|min|minute|h|hour))?\s*$/i.exec(text);
  if (!m || Number(m[1]) < 1)
    throw new Error(`"${text}" is not a rate limit; write it as N/min, N/s or N/hour, e.g. 60/min`);
  const unit = (m[2] ?? 'min').toLowerCase();
  const windowMs = unit.startsWith('s') ? 1000 : unit.startsWith('h') ? 3_600_000 : 60_000;
  return { limit: Number(m[1]), windowMs };
}

/** A request's decision, the window's `count` requests in, and its headers (the window ends at `resetMs`; `t` is now). */
export function decide(rule: RateLimit, allowed: boolean, count: number, resetMs: number, t: number): RateDecision {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(rule.limit),
    'X-RateLimit-Remaining': String(Math.max(0, rule.limit - count)),
    'X-RateLimit-Reset': String(Math.ceil(resetMs / 1000)),
  };
  if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((resetMs - t) / 1000)));
  return { allowed, headers };
}

/**
 * Fixed windows aligned to the clock, counted in memory: a restart starts afresh. Only the current
 * window's keys are kept: the first request of a new window drops every older one, so that users
 * and feeds seen once over months do not stay in memory.
 */
export class FixedWindowRateLimiter<K = number> implements RateLimiter<K> {
  private readonly windows = new Map<K, { start: number; count: number }>();
  private current = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rule: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: K): RateDecision {
    const t = this.now();
    const start = t - (t % this.rule.windowMs);
    if (start > this.current) {
      this.current = start;
      for (const [k, old] of this.windows) if (old.start < start) this.windows.delete(k);
    }
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    const allowed = w.count < this.rule.limit;
    if (allowed) w.count++;
    return decide(this.rule, allowed, w.count, start + this.rule.windowMs, t);
  }

  /** The keys counted in memory (the current window's). */
  get size(): number {
    return this.windows.size;
  }
}
