/**
 * Calendar feeds over the API: an account's feeds made, listed and revoked with a token
 * (/calendar-feeds), and each feed read by its secret alone (/feeds/<secret>.ics), as a calendar
 * app subscribed to it does every few minutes. A poll with nothing new is one indexed statement
 * and a 304; the calendar is made only when something changed, and then a page at a time, written
 * as it is made.
 */
import { CALENDAR_RESOURCE, fieldOf } from '../resources/index.js';
import { ApiError, ErrorBag } from '../core/errors.js';
import { isObject } from '../core/json.js';
import type { Condition } from '../core/query.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import { budgetOf, OverBudget } from './budget.js';
import type { RateLimiter } from './ratelimit.js';
import type { CalendarWriter } from '../core/ics.js';
import type { ApiRecord, OpenedFeed, Principal, RecordPage, Store } from './store.js';

/** What the API core gives the feed routes: its store and limiter, and its checks of a token and a body. */
interface FeedDeps {
  readonly store: Store;
  /** The token's principal, rate-limited, with `scopes` (401, 429, 403 otherwise). */
  authorize(scopes: readonly string[]): Promise<Principal>;
  /** The request body as JSON (415, 400 otherwise). */
  readJson(): Promise<unknown>;
  /** The URL a feed of this secret is read at (the request's origin, or the public URL). */
  feedUrl(secret: string): string;
}

/** An answer for the core to send: status and JSON body, or a 405 with its Allow header. */
type FeedAnswer = { readonly status: number; readonly body?: unknown; readonly allow?: string };

/** How often a subscribed app is asked to fetch the feed again (REFRESH-INTERVAL). */
const FEED_REFRESH_SECONDS = 15 * 60;
/**
 * How many records a feed reads at a time. A page of the largest reminders (64 KiB of text each)
 * is some 640 KiB; as a page lives while its events are made, among other feeds' pages, much of
 * it outlives the young generation's collections: with eight such feeds at once, pages of 50 grew
 * pm serve by some 330 MB of garbage awaiting a full collection, pages of 10 by some 130 MB, and
 * took no longer.
 */
const FEED_PAGE = 10;
/** About how much of a feed's text is gathered before it is written (characters). */
const FEED_CHUNK = 64 * 1024;
/** The longest a feed's writing keeps the event loop before it lets other requests in (ms). */
const FEED_SLICE_MS = 5;
/** The secret in a feed's path (anything else is the same 404 as a wrong secret). */
const SECRET_SEGMENT = /^([A-Za-z0-9_-]{16,128})\.ics$/;

const r = CALENDAR_RESOURCE;
const read = `${r.scope}.read`;
const write = `${r.scope}.write`;

/** POST and GET /calendar-feeds, DELETE /calendar-feeds/{uuid}. */
export async function manageFeeds(method: string, uuid: string | undefined, deps: FeedDeps): Promise<FeedAnswer> {
  const { store } = deps;
  if (uuid === undefined) {
    if (method === 'GET' || method === 'HEAD') {
      const p = await deps.authorize([read]);
      return { status: 200, body: { data: await store.listFeeds(p.accountId) } };
    }
    if (method === 'POST') {
      // A feed publishes the reminders to whoever holds its URL: making one takes both scopes.
      const p = await deps.authorize([read, write]);
      const name = feedName(await deps.readJson());
      const { secret, ...feed } = await store.createFeed(p, name);
      return { status: 201, body: { data: { ...feed, url: deps.feedUrl(secret) } } };
    }
    return { status: 405, allow: 'GET, HEAD, POST' };
  }
  if (method !== 'DELETE') return { status: 405, allow: 'DELETE' };
  const p = await deps.authorize([write]);
  if (!(await store.revokeFeed(p.accountId, uuid))) throw new ApiError(404, `No calendar feed with uuid "${uuid}".`);
  return { status: 204 };
}

/** A new feed's body: `{"name"}`, 1 to 255 characters, and nothing else (at most 100 errors listed). */
function feedName(body: unknown): string {
  if (!isObject(body)) throw new ApiError(400, 'The request body must be a JSON object: {"name": "..."}.');
  const bag = new ErrorBag();
  for (const k of Object.keys(body)) if (k !== 'name') bag.add(k, `The ${k} field is not a field of a calendar feed.`);
  const name = body.name;
  if (name === undefined || name === null || name === '') bag.add('name', 'The name field is required.');
  else if (typeof name !== 'string') bag.add('name', 'The name field must be a string.');
  else if ([...name].length > 255) bag.add('name', 'The name field must not be greater than 255 characters.');
  bag.throwIfAny();
  return name as string;
}

/** What reading a feed takes of the API core. */
interface FeedReading {
  readonly store: Store;
  /** Each feed's own rate limit, keyed by the feed (never its owner's API budget). */
  readonly feedLimiter?: RateLimiter<string> | undefined;
  /** The time each page of a feed's records may take to read (ms). */
  readonly listBudgetMs?: number | undefined;
  readonly feedTurns: FeedTurns;
}

/**
 * The feeds being made take turns, one slice (FEED_SLICE_MS) a turn of the event loop, in the
 * order they asked: however many are written at once, the loop looks for I/O and timers between
 * any two slices, so another request waits for one slice, not one of each feed.
 */
export class FeedTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves at this feed's next turn. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || !this.waiting.length) return;
    this.scheduled = true;
    // An immediate set while immediates run waits for the loop's next turn.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}

/**
 * GET /feeds/{secret}.ics. The secret is looked up by its hash, and only then is anything else
 * done: a wrong secret is answered after the same lookup whatever it is, and no answer names it.
 * A request is counted against the feed's own rate limit. The calendar is read a page at a time
 * and written as it is made (calendarText), never held whole.
 */
export async function readFeed(req: ApiRequest, segment: string, deps: FeedReading): Promise<ApiResponse> {
  const { store, feedLimiter } = deps;
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw new ApiError(405, 'Only GET and HEAD read a calendar feed.', undefined, { Allow: 'GET, HEAD' });
  const secret = SECRET_SEGMENT.exec(segment)?.[1];
  const feed = secret === undefined ? undefined : await store.openFeed(secret, r);
  if (!feed)
    throw new ApiError(404, 'No such calendar feed: it was revoked, or its URL is not whole.', undefined, {
      'Cache-Control': 'no-store',
    });
  const headers: Record<string, string> = {};
  if (feedLimiter) {
    const d = await feedLimiter.hit(feed.uuid);
    Object.assign(headers, d.headers);
    if (!d.allowed)
      throw new ApiError(
        429,
        `This calendar feed has been read too often: try again in ${d.headers['Retry-After']} seconds.`,
        undefined,
        { ...d.headers, 'Cache-Control': 'no-store' },
      );
  }
  const modified = Math.max(feed.updatedAt, feed.deletedAt, feed.createdAt);
  Object.assign(headers, {
    ETag: etagOf(feed),
    'Last-Modified': new Date(modified).toUTCString(),
    // An app may keep it, but asks again (with its validators) before it takes it as current.
    'Cache-Control': 'private, no-cache',
  });
  if (notModified(req, headers.ETag as string, modified)) return { status: 304, headers };
  headers['Content-Type'] = 'text/calendar; charset=utf-8';
  // HEAD gets the headers of GET, but for its length: the calendar is only known as it is written.
  if (req.method === 'HEAD') return { status: 200, headers };
  const pages = feedPages(store, feed, deps.listBudgetMs, req.signal);
  // The first page is read before the answer is begun: a busy server still answers 503.
  const first = await pages.next();
  const { calendarWriter } = await import('../core/ics.js');
  const w = await calendarWriter(r, { name: feed.name, now: modified, refreshSeconds: FEED_REFRESH_SECONDS });
  const turn = () => deps.feedTurns.next();
  return { status: 200, headers, stream: calendarText(w, first.done ? [] : first.value, pages, turn) };
}

/**
 * The calendar's text, in chunks of about FEED_CHUNK, each page's events made and written before
 * the next page is read (the door waits for the client to take a chunk before it asks for the
 * next). Making it gives the event loop back every FEED_SLICE_MS, and between pages, waiting for
 * its turn (FeedTurns), so that other requests are answered while large feeds are written.
 */
async function* calendarText(
  w: CalendarWriter,
  first: readonly ApiRecord[],
  rest: AsyncGenerator<readonly ApiRecord[]>,
  turn: () => Promise<void>,
): AsyncGenerator<Uint8Array> {
  let chunk = w.head;
  let since = performance.now();
  try {
    for (let records = first; ; ) {
      for (const rec of records) {
        chunk += w.event(rec) ?? '';
        if (chunk.length >= FEED_CHUNK) {
          yield Buffer.from(chunk);
          chunk = '';
        }
        if (performance.now() - since >= FEED_SLICE_MS) {
          await turn();
          since = performance.now();
        }
      }
      await turn();
      since = performance.now();
      const next = await rest.next();
      if (next.done) break;
      records = next.value;
    }
  } finally {
    // A client gone half-way: no more pages are read.
    await rest.return(undefined);
  }
  yield Buffer.from(chunk + w.end);
}

/**
 * A feed's validator: its account's count of records, their latest update and last delete (a
 * create or an update moves the latest update; a delete, the count and the last delete). The
 * calendar is made from these records alone, so the same validator means the same text.
 */
const etagOf = (f: OpenedFeed) => `"v1-${f.count}-${f.updatedAt}-${f.deletedAt}"`;

/**
 * RFC 9110's conditional GET: If-None-Match (any of its tags, weakly compared) when it is sent,
 * else If-Modified-Since (to the second an HTTP date has).
 */
function notModified(req: ApiRequest, etag: string, modified: number): boolean {
  const match = req.header('if-none-match');
  if (match !== undefined) {
    const tags = match.split(',').map((t) => t.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(etag);
  }
  const since = req.header('if-modified-since');
  if (since === undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && Math.floor(modified / 1000) * 1000 <= at;
}

/**
 * Every record of the feed's account that has a due date, in list order, FEED_PAGE at a time,
 * each page read within the list budget; none read once the client has gone.
 */
async function* feedPages(
  store: Store,
  feed: OpenedFeed,
  budgetMs: number | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<readonly ApiRecord[]> {
  const due = fieldOf(r, r.agenda?.due ?? '');
  if (!due) throw new Error(`${r.plural} have no due field`);
  const dated: Condition = { kind: 'range', field: due, range: { start: -8.64e15, end: 8.64e15 } };
  let seen = 0;
  for (let page = 1; !signal?.aborted; page++) {
    // Where each is (a reminder's property: the event's LOCATION).
    const q = { conditions: [dated], page, perPage: FEED_PAGE, embed: r.agenda?.where ? [r.agenda.where] : [] };
    let got: RecordPage;
    try {
      got = await store.list(feed.accountId, r, q, budgetMs ? budgetOf(budgetMs, signal) : undefined);
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      if (signal?.aborted) return;
      const message = 'The server is busy: this calendar could not be made in time. Try again shortly.';
      throw new ApiError(503, message, undefined, { 'Retry-After': '5' });
    }
    // A reader thread sends its records as JSON text.
    const records = got.json ? (JSON.parse(got.json.text) as ApiRecord[]) : got.records;
    seen += records.length;
    yield records;
    if (!records.length || seen >= got.total) return;
  }
}
