/**
 * The rate limits with their counters in the database: one budget per user (and one per calendar
 * feed) across every instance on it. Fixed windows aligned to the clock, as FixedWindowRateLimiter
 * counts them in memory, with the same headers; each request is one atomic statement (an upsert
 * that returns the count).
 */
import { decide, type RateDecision, type RateLimit, type RateLimiter } from '../ratelimit.js';
import { type Pg, storeError } from './db.js';

/** Where a limit's counters are: the table, and its key column. */
interface Counters {
  readonly table: string;
  readonly key: string;
}

/** Each user's API budget. */
const USERS: Counters = { table: 'rate_limits', key: 'user_id' };
/** Each calendar feed's reads, apart from its owner's budget. */
export const FEEDS: Counters = { table: 'feed_rate_limits', key: 'feed' };

export class PgRateLimiter<K extends number | string = number> implements RateLimiter<K> {
  constructor(
    private readonly pg: Pg,
    private readonly rule: RateLimit,
    private readonly now: () => number = Date.now,
    private readonly counters: Counters = USERS,
  ) {}

  async hit(key: K): Promise<RateDecision> {
    const t = this.now();
    const start = t - (t % this.rule.windowMs);
    const limit = this.rule.limit;
    const { table, key: column } = this.counters;
    // A new window starts the count afresh; one an instance with a slower clock still counts in
    // is counted in the newer one. The count stops at limit + 1: no more is needed to refuse.
    let rows: Record<string, unknown>[];
    try {
      rows = await this.pg.query(
        `INSERT INTO ${table} AS r (${column}, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (${column}) DO UPDATE SET
           count = CASE WHEN r.window_start >= excluded.window_start THEN LEAST(r.count + 1, ?::integer + 1) ELSE 1 END,
           window_start = GREATEST(r.window_start, excluded.window_start)
         RETURNING count, window_start`,
        [key, start, limit],
      );
    } catch (e) {
      throw storeError(e);
    }
    const count = rows[0]?.count as number;
    return decide(this.rule, count <= limit, count, (rows[0]?.window_start as number) + this.rule.windowMs, t);
  }
}
