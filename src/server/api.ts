/**
 * The API's request handling, independent of any HTTP server (docs/architecture.md). The CLI's
 * embedded default calls it in-process (embedded.ts), which is why nothing here may load
 * node:http's server or the WHATWG fetch classes (Request, Response, Headers): on Node 20,
 * loading those costs a CLI run some 25 ms.
 */
import { attachments, embedNames, embedsOf, filterRelationsOf, resourceByPath } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { ApiError, QueryError } from '../core/errors.js';
import { CALENDAR_FEEDS_PATH, FEED_PATH, HEALTH_PATH, OPENAPI_PATH } from '../core/endpoints.js';
import { parseEmbed, parseListQuery } from '../core/query.js';
import { type Named, type ValidBody, validateBody } from '../core/validate.js';
import { budgetOf, OverBudget } from './budget.js';
import { DEFAULT_MAX_ATTACHMENT_BYTES, fileRoute, hasLinks, readBytes, upload, withLinks } from './attachments.js';
import { FeedTurns, manageFeeds, readFeed } from './calendar.js';
import { claimOf, keyOf, Replayed, replayHeaders, sweeper } from './idempotency.js';
import type { Api, ApiRequest, ApiResponse } from './exchange.js';
import type { RateLimiter } from './ratelimit.js';
import { decodeSegment, type Endpoint, matchRoute, type Operation } from './routes.js';
import type { ApiRecord, Principal, RecordPage, Store } from './store.js';

interface ApiOptions {
  readonly store: Store;
  readonly now?: () => number;
  readonly rateLimiter?: RateLimiter | undefined;
  /** Each calendar feed's reads, limited by the feed (calendar.ts), never out of its owner's budget. */
  readonly feedLimiter?: RateLimiter<string> | undefined;
  /**
   * Where unexpected errors are reported (never to the client), and lists stopped at their budget;
   * with the request they happened on.
   */
  readonly logError?: ((err: unknown, req?: ApiRequest) => void) | undefined;
  /**
   * The time a list may take (ms), from when the store is asked for it: then it is stopped and
   * answered 422 naming its filters (or 503 if it never started: budget.ts). None: no limit (the
   * CLI's embedded default, one user in-process).
   */
  readonly listBudgetMs?: number | undefined;
  /** The largest attachment taken (bytes; DEFAULT_MAX_ATTACHMENT_BYTES when not given). */
  readonly maxAttachmentBytes?: number | undefined;
  /** Where an upload's bytes wait for their transaction (spool.ts; the system's temporary directory when not given). */
  readonly uploadDir?: string | undefined;
  /** The most bytes of files an account may keep (`pm serve --quota`); none when not given. */
  readonly quotaBytes?: number | undefined;
}

export type { Api } from './exchange.js';

/** The API's options, its clock set. */
interface Core extends ApiOptions {
  readonly now: () => number;
  /** Sweeps old idempotency keys, at most once a minute: called after a create that named one. */
  readonly sweep: () => void;
  /** Whose turn it is to make a slice of a calendar feed (calendar.ts). */
  readonly feedTurns: FeedTurns;
}

/** One request on its way through: what the handlers read, and the headers they set. */
interface Exchange {
  readonly core: Core;
  readonly req: ApiRequest;
  readonly url: URL;
  /** Set along the way; they stay on an error answer too (the rate limit's, for one). */
  readonly headers: Record<string, string>;
  /** The route matched, and the account of the request's token, once each is known. */
  route?: string;
  accountId?: number;
}

/** An answer's status, and its body: as a value, or as its JSON text already (`text`). */
type Answer = { readonly status: number; readonly body?: unknown; readonly text?: string };
/** What an operation does with a request matched to its endpoint (the uuid in the path, or ''). */
type Handler = (x: Exchange, uuid: string, e: Endpoint) => Answer | Promise<Answer>;

export function createApi(opts: ApiOptions): Api {
  const now = opts.now ?? Date.now;
  const sweep = sweeper(
    () => opts.store.sweepKeys(),
    now,
    (e) => opts.logError?.(e),
  );
  const core: Core = { ...opts, now, sweep, feedTurns: new FeedTurns() };
  return async (req) => {
    const x: Exchange = { core, req, url: new URL(req.url), headers: {} };
    const res = await answer(x);
    return { ...res, route: x.route, accountId: x.accountId };
  };
}

async function authorize(x: Exchange, scopes: readonly string[]): Promise<Principal> {
  const header = x.req.header('authorization') ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const principal = x.req.principal ?? (m ? await x.core.store.authenticate(m[1] as string) : undefined);
  x.accountId = principal?.accountId;
  if (!principal) throw new ApiError(401, 'Unauthenticated.', undefined, { 'WWW-Authenticate': 'Bearer realm="pm"' });
  const { rateLimiter } = x.core;
  if (rateLimiter) {
    const d = await rateLimiter.hit(principal.userId);
    Object.assign(x.headers, d.headers);
    if (!d.allowed) throw new ApiError(429, 'Too Many Attempts.', undefined, d.headers);
  }
  requireScopes(principal, scopes);
  return principal;
}

/** A write: the resource's write scope, and no query parameters. */
async function authorizeWrite(x: Exchange, r: ResourceDef): Promise<Principal> {
  const p = await authorize(x, [`${r.scope}.write`]);
  singleQuery(x.url, r, false);
  return p;
}

function pageLink(x: Exchange, page: number): string {
  const u = new URL(x.url);
  u.searchParams.set('page', String(page));
  return u.toString();
}

/** Each operation of the route table (routes.ts), on the resource of the endpoint matched. */
const OPERATIONS: Record<Operation, Handler> = {
  async list(x, _uuid, { resource: r }) {
    const p = await authorize(x, relationScopes(x.url, r));
    const q = parseListQuery(r, x.url.searchParams, x.core.now());
    const { store, listBudgetMs: ms } = x.core;
    let page: RecordPage;
    try {
      page = await store.list(p.accountId, r, q, ms ? budgetOf(ms, x.req.signal) : undefined);
    } catch (e) {
      throw ms && e instanceof OverBudget ? overBudget(x, p, ms, e) : e;
    }
    const { total, json } = page;
    const totalPages = Math.max(1, Math.ceil(total / q.perPage));
    const links: Record<string, string> = {};
    if (q.page < totalPages) links.next = pageLink(x, q.page + 1);
    if (q.page > 1) links.previous = pageLink(x, Math.min(q.page - 1, totalPages));
    const pagination = {
      total,
      count: json ? json.count : page.records.length,
      per_page: q.perPage,
      current_page: q.page,
      total_pages: totalPages,
      links,
    };
    // Records a reader thread sent as JSON go out as they came (the same text JSON.stringify
    // of the whole answer makes).
    if (json) return { status: 200, text: `{"data":${json.text},"meta":${JSON.stringify({ pagination })}}` };
    return { status: 200, body: { data: page.records, meta: { pagination } } };
  },
  async get(x, uuid, { resource: r }) {
    const p = await authorize(x, [`${r.scope}.read`, ...embedScopes(x.url, r)]);
    const embed = singleQuery(x.url, r, true);
    return { status: 200, body: { data: await x.core.store.get(p.accountId, r, uuid, embed) } };
  },
  /** A new record: at its own path, or under a record of `parent` (the uuid in the path). */
  create: withBody(async (x, uuid, { resource: r, parent }) => {
    const p = await authorizeWrite(x, r);
    const key = keyOf(x.req);
    const text = await readJsonText(x);
    const body = validateBody(r, parseJson(text), 'create');
    requireScopes(p, linkScopes(r, body));
    // The same key with the same request (its path and body, as sent) is the same create.
    const claim = claimOf(key, [x.url.pathname, text]);
    const got = await replayed(x, r, () =>
      x.core.store.create(p.accountId, r, body, parent && { resource: parent, uuid }, undefined, claim),
    );
    if ('replay' in got) return got.replay;
    const rec = got.made;
    x.headers.Location = `${x.url.origin}/${r.path}/${rec.uuid}`;
    return { status: 201, body: { data: rec } };
  }),
  update: withBody(async (x, uuid, { resource: r }) => {
    const p = await authorizeWrite(x, r);
    const body = validateBody(r, await readJson(x), 'update');
    requireScopes(p, linkScopes(r, body));
    return { status: 200, body: { data: await x.core.store.update(p.accountId, r, uuid, body) } };
  }),
  async delete(x, uuid, { resource: r }) {
    const p = await authorizeWrite(x, r);
    await x.core.store.delete(p.accountId, r, uuid);
    return { status: 204 };
  },
};

/**
 * What a create comes to: its record, or the first answer its idempotency key was given (with
 * `Idempotent-Replayed`). A create that named a key sweeps old keys now and then.
 */
async function replayed<T>(
  x: Exchange,
  r: ResourceDef,
  create: () => T | Promise<T>,
): Promise<{ made: T } | { replay: Answer }> {
  try {
    return { made: await create() };
  } catch (e) {
    if (!(e instanceof Replayed)) throw e;
    Object.assign(x.headers, replayHeaders(x.url.origin, r.path, e));
    return { replay: { status: e.status, text: `{"data":${e.record}}` } };
  } finally {
    if (x.req.header('idempotency-key') !== undefined) x.core.sweep();
  }
}

/**
 * A list stopped at its budget, as its client hears of it, logged: 422 naming its filters, to
 * narrow (a request the server cannot afford as it is; a client does not send it again as it
 * would a 503); 503 with Retry-After if it waited all along for a turn (the server is busy).
 * The log names the account, the path and the filters with their values' lengths, never the
 * values (they are records' text).
 */
function overBudget(x: Exchange, p: Principal, ms: number, e: OverBudget): ApiError {
  const seconds = `${ms / 1000} s`;
  const names = [...new Set(x.url.searchParams.keys())].filter((k) => !['page', 'per_page', 'embed'].includes(k));
  const lengths = names.map((k) => `${k} (${x.url.searchParams.get(k)?.length ?? 0} characters)`).join(', ');
  if (!x.req.signal?.aborted)
    x.core.logError?.(
      new OverBudget(
        e.started,
        `GET ${x.url.pathname} of account ${p.accountId}: ${e.started ? 'a list stopped at' : 'a list that waited for a turn all'} its ${seconds} budget (filters: ${lengths || 'none'})`,
      ),
      x.req,
    );
  if (!e.started)
    return new ApiError(
      503,
      `The server is busy with other lists: this one waited its whole ${seconds} budget for its turn. Try again shortly.`,
      undefined,
      { 'Retry-After': '5' },
    );
  const filters = names.length ? `its filter ${names.join(', ')}` : 'it';
  const message = `This list took longer than the ${seconds} a list may take here, and was stopped: narrow ${filters} (a more particular value, or another filter beside it).`;
  const each = `took longer than the ${seconds} a list may take.`;
  return new ApiError(422, message, Object.fromEntries(names.map((k) => [k, [`The ${k} filter ${each}`]])));
}

/**
 * GET /health, for load balancers and service managers: no token, no rate limit; 200 when the
 * store answers, 503 (with Retry-After) when it does not; the store's state either way.
 */
async function health(x: Exchange): Promise<ApiResponse> {
  const { req } = x;
  onlyGet(req);
  try {
    await x.core.store.ping();
    return respond(req, 200, { 'Cache-Control': 'no-store' }, { status: 'ok', store: 'ok' });
  } catch (e) {
    if (!(e instanceof ApiError)) x.core.logError?.(e, req);
    const retry = e instanceof ApiError ? (e.headers?.['Retry-After'] ?? '5') : '5';
    const headers = { 'Cache-Control': 'no-store', 'Retry-After': retry };
    const message = 'The server cannot reach its data store.';
    return respond(req, 503, headers, withId(req, { status: 'unavailable', store: 'unreachable', message }));
  }
}

/** /calendar-feeds and /calendar-feeds/{uuid}: undefined for any other path. */
async function feeds(x: Exchange): Promise<ApiResponse | undefined> {
  const [, root, uuid, ...rest] = x.url.pathname.split('/');
  if (`/${root}` !== CALENDAR_FEEDS_PATH || rest.length || uuid === '') return undefined;
  x.route = uuid === undefined ? CALENDAR_FEEDS_PATH : `${CALENDAR_FEEDS_PATH}/{uuid}`;
  const { req } = x;
  if (req.method === 'POST') await req.body.settle();
  const answer = await manageFeeds(req.method, uuid === undefined ? undefined : decodeSegment(uuid), {
    store: x.core.store,
    authorize: (scopes) => authorize(x, scopes),
    readJson: () => readJson(x),
    feedUrl: (secret) => `${x.url.origin}${FEED_PATH}/${secret}.ics`,
  });
  if (answer.allow) throw notAllowed(req, answer.allow);
  return respond(req, answer.status, x.headers, answer.body);
}

/** An upload under a record, or a file's bytes (attachments.ts): undefined for any other path. */
async function files(x: Exchange): Promise<ApiResponse | undefined> {
  const found = fileRoute(x.url.pathname.split('/').slice(1).map(decodeSegment));
  if (!found) return undefined;
  x.route = found.route;
  const deps = {
    store: x.core.store,
    authorize: (scopes: readonly string[]) => authorize(x, scopes),
    maxBytes: x.core.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
    uploadDir: x.core.uploadDir ?? process.getBuiltinModule('node:os').tmpdir(),
    quotaBytes: x.core.quotaBytes,
  };
  if (found.read) {
    const res = await readBytes(x.req, x.url, found.uuid, found.read, deps);
    return { ...res, headers: { ...x.headers, ...res.headers } };
  }
  if (x.req.method !== 'POST') throw notAllowed(x.req, 'POST');
  const key = keyOf(x.req);
  const got = await replayed(x, attachments, () =>
    upload(x.req, x.url, found.upload as ResourceDef, found.uuid, { ...deps, key }),
  );
  if ('replay' in got) {
    const { status, body, text } = linked(x, attachments, got.replay);
    return text === undefined ? respond(x.req, status, x.headers, body) : respondText(x.req, status, x.headers, text);
  }
  const made = got.made;
  x.headers.Location = made.location;
  return respond(x.req, made.status, x.headers, made.body);
}

async function answer(x: Exchange): Promise<ApiResponse> {
  const { req, url, core } = x;
  try {
    if (url.pathname === HEALTH_PATH || url.pathname === OPENAPI_PATH) {
      x.route = url.pathname;
      return await (url.pathname === HEALTH_PATH ? health(x) : document(req));
    }
    // A feed's secret is the one segment after FEED_PATH/: no answer repeats the path.
    if (url.pathname.startsWith(`${FEED_PATH}/`)) {
      x.route = `${FEED_PATH}/{secret}.ics`;
      return await readFeed(req, url.pathname.slice(FEED_PATH.length + 1), core);
    }
    const feedAnswer = (await feeds(x)) ?? (await files(x));
    if (feedAnswer) return feedAnswer;
    const found = matchRoute(url.pathname);
    if (!found) throw new ApiError(404, `No endpoint ${req.method} ${url.pathname}.`);
    x.route = found.route.template;
    const endpoint = found.route.endpoints.get(req.method === 'HEAD' ? 'GET' : req.method);
    if (!endpoint) {
      const r = found.route.resource;
      const hint =
        req.method === 'PUT' && !r.verbs.update
          ? ` ${r.plural.charAt(0).toUpperCase()}${r.plural.slice(1)} cannot be updated.`
          : '';
      throw notAllowed(req, found.route.allow, hint);
    }
    const { status, body, text } = linked(
      x,
      found.route.resource,
      await OPERATIONS[endpoint.op](x, found.uuid, endpoint),
    );
    return text === undefined ? respond(req, status, x.headers, body) : respondText(req, status, x.headers, text);
  } catch (err) {
    if (err instanceof ApiError) {
      const res = respond(req, err.status, { ...x.headers, ...err.headers }, withId(req, err.toBody()));
      return err.status >= 500 && err.cause !== undefined ? { ...res, fault: err } : res;
    }
    core.logError?.(err, req);
    return respond(req, 500, x.headers, withId(req, { message: 'Server Error' }));
  }
}

/** An answer's records with their links made absolute (an attachment's download_url), on resources that have them. */
function linked(x: Exchange, r: ResourceDef, a: Answer): Answer {
  if (!hasLinks(r) || (a.body === undefined && a.text === undefined)) return a;
  const body = (a.text === undefined ? a.body : JSON.parse(a.text)) as { data: ApiRecord | ApiRecord[] };
  for (const rec of Array.isArray(body.data) ? body.data : [body.data]) withLinks(r, x.url.origin, rec);
  return { status: a.status, body };
}

/** An error body with the request's id, when the door gave it one. */
function withId<B extends object>(req: ApiRequest, body: B): B | (B & { request_id: string }) {
  return req.requestId === undefined ? body : { ...body, request_id: req.requestId };
}

/** The document's text around its server's URL (a JSON string), made once: [before, after]. */
let documentText: [string, string] | undefined;
const SERVER_HERE = 'urn:pm:this-server';

/**
 * The OpenAPI document: no token needed, GET and HEAD only, no query parameters. Its `servers`
 * names the origin it was asked at (--public-url's, behind a proxy), so a client generated from
 * it calls this server.
 */
async function document(req: ApiRequest): Promise<ApiResponse> {
  onlyGet(req);
  // Loaded when asked for: the CLI's embedded default never pays for it.
  if (!documentText) {
    const { openApiDocument } = await import('../core/openapi.js');
    const text = JSON.stringify(openApiDocument({ url: SERVER_HERE, description: 'this server' }));
    const [before, after] = text.split(JSON.stringify(SERVER_HERE)) as [string, string];
    documentText = [before, after];
  }
  const [before, after] = documentText;
  return respondText(req, 200, {}, `${before}${JSON.stringify(new URL(req.url).origin)}${after}`);
}

function notAllowed(req: ApiRequest, allow: string, hint = ''): ApiError {
  return new ApiError(405, `The ${req.method} method is not supported for this route.${hint}`, undefined, {
    Allow: allow,
  });
}

/** The routes that answer GET and HEAD alone (health, the OpenAPI document). */
function onlyGet(req: ApiRequest): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw notAllowed(req, 'GET, HEAD');
}

function respond(req: ApiRequest, status: number, headers: Record<string, string>, body: unknown): ApiResponse {
  return body === undefined ? { status, headers } : respondText(req, status, headers, JSON.stringify(body));
}

function respondText(req: ApiRequest, status: number, headers: Record<string, string>, text: string): ApiResponse {
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  // HEAD is answered as GET, headers and all, without the body.
  return req.method === 'HEAD' ? { status, headers } : { status, headers, body: text };
}

/** On a route that takes a body, its size is settled before anything else (see RequestBody.settle). */
function withBody(handler: Handler): Handler {
  return async (x, uuid, e) => {
    await x.req.body.settle();
    return handler(x, uuid, e);
  };
}

async function readJson(x: Exchange): Promise<unknown> {
  return parseJson(await readJsonText(x));
}

/** A JSON body's text, its type checked (415) and not empty (400). */
async function readJsonText(x: Exchange): Promise<string> {
  const type = x.req.header('content-type') ?? '';
  const [mime = '', ...params] = type.split(';').map((s) => s.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice(8);
  if (mime !== 'application/json' || (charset && charset !== 'utf-8' && charset !== 'utf8'))
    throw new ApiError(
      415,
      `The request body must be sent as Content-Type: application/json (got "${type || 'none'}").`,
    );
  const text = await x.req.body.text();
  if (text.trim() === '') throw new ApiError(400, 'The request body is empty; send a JSON object.');
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, `The request body is not valid JSON: ${(e as Error).message}.`);
  }
}

/** Query parameters on endpoints other than list: only embed, where the resource has embeds. */
function singleQuery(url: URL, r: ResourceDef, allowEmbed: boolean): string[] {
  let embed: string[] = [];
  for (const [k, v] of url.searchParams) {
    if (k === 'embed' && allowEmbed && embedNames(r).length) embed = parseEmbed(r, [v]);
    else throw new QueryError(k, `Unknown query parameter "${k}" for this endpoint.`);
  }
  return embed;
}

/** 403 naming the scopes the token lacks. */
function requireScopes(p: Principal, scopes: readonly string[]): void {
  const missing = scopes.filter((s) => !p.scopes.has(s));
  if (missing.length)
    throw new ApiError(403, `This action is unauthorized: the token lacks the ${missing.join(', ')} scope.`);
}

/**
 * Embedding reads the embedded records: each embed needs its target's read scope (a property's
 * contact contacts.read, its custom values custom-fields.read). Read leniently (unknown names are
 * refused later, as a 400).
 */
function embedScopes(url: URL, r: ResourceDef): string[] {
  const names = url.searchParams.getAll('embed').flatMap((v) => v.split(',').map((s) => s.trim()));
  return embedsOf(r)
    .filter((e) => names.includes(e.name))
    .map((e) => e.scope);
}

/**
 * Naming a linked record, or one of a set, by anything but its uuid (a contact by email, a status
 * by label) looks it up, which tells whether such a record exists: it needs the target's read scope.
 */
function linkScopes(r: ResourceDef, body: ValidBody): string[] {
  const byText = (n: Named | null | undefined) => Object.keys(n ?? {}).some((k) => k !== 'uuid');
  const targets = [
    ...(r.links ?? []).filter((l) => byText(body.links[l.name])),
    ...(r.sets ?? []).filter((x) => body.sets[x.name]?.some(byText)),
  ].map((l) => `${resourceByPath(l.target).scope}.read`);
  return [...new Set(targets)];
}

/** A list with relational filters, or embeds, also reads the related resources. */
function relationScopes(url: URL, r: ResourceDef): string[] {
  const scopes = new Set([`${r.scope}.read`, ...embedScopes(url, r)]);
  const custom = embedsOf(r).find((e) => e.kind === 'custom_values');
  for (const k of url.searchParams.keys()) {
    const base = k.split('[')[0];
    const rel = filterRelationsOf(r).find((x) => x.name === base);
    if (rel) scopes.add(`${resourceByPath(rel.target).scope}.read`);
    if (custom && base === custom.name) scopes.add(custom.scope);
  }
  return [...scopes];
}
