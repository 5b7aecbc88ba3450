/**
 * The HTTP application: routes derived from the resource descriptions. Building the app is
 * separate from listening (see index.ts); everything it needs is passed in.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { RESOURCES, resourceByPath } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { ApiError, QueryError } from '../core/errors.js';
import { parseListQuery } from '../core/query.js';
import { validateBody } from '../core/validate.js';
import type { RateLimiter } from './ratelimit.js';
import type { Principal, Repository } from './repository.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppOptions {
  readonly repo: Repository;
  readonly now?: () => number;
  readonly rateLimiter?: RateLimiter;
  /** Where unexpected errors are reported (never to the client). */
  readonly logError?: (err: unknown) => void;
}

type Env = { Variables: { principal: Principal; bodyRead: boolean } };
type Access = 'read' | 'write';

export function createApp(opts: AppOptions): Hono<Env> {
  const { repo, rateLimiter } = opts;
  const now = opts.now ?? Date.now;
  const app = new Hono<Env>();

  app.onError((err, c) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
      return c.json(err.toBody(), err.status as 400);
    }
    opts.logError?.(err);
    return c.json({ message: 'Server Error' }, 500);
  });
  // A response sent before the request body was read (401, 403, 413, 415, 405, ...) closes the
  // connection: the unread rest of the body would otherwise be left on a socket the client reuses.
  app.use('*', async (c, next) => {
    await next();
    const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && !c.get('bodyRead')) c.res.headers.set('Connection', 'close');
  });
  app.notFound((c) => c.json({ message: `No endpoint ${c.req.method} ${new URL(c.req.url).pathname}.` }, 404));

  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json({ message: `The request body is larger than ${MAX_BODY_BYTES} bytes.` }, 413),
  });

  /** Authenticates, checks the scope, applies the rate limit. */
  function authorize(c: Context<Env>, scopes: readonly string[]): Principal {
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const principal = m ? repo.authenticate(m[1] as string) : undefined;
    if (!principal) throw new ApiError(401, 'Unauthenticated.', undefined, { 'WWW-Authenticate': 'Bearer realm="pm"' });
    if (rateLimiter) {
      const d = rateLimiter.hit(principal.userId);
      for (const [k, v] of Object.entries(d.headers)) c.header(k, v);
      if (!d.allowed) throw new ApiError(429, 'Too Many Attempts.', undefined, d.headers);
    }
    const missing = scopes.filter((s) => !principal.scopes.has(s));
    if (missing.length)
      throw new ApiError(403, `This action is unauthorized: the token lacks the ${missing.join(', ')} scope.`);
    return principal;
  }

  const scope = (r: ResourceDef, a: Access) => `${r.scope}.${a}`;

  /** Query parameters on endpoints other than list: only embed, where the resource has embeds. */
  function singleQuery(c: Context<Env>, r: ResourceDef, allowEmbed: boolean): string[] {
    const params = new URL(c.req.url).searchParams;
    let embed: string[] = [];
    for (const [k, v] of params) {
      if (k === 'embed' && allowEmbed && r.embeds?.length) {
        embed = v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        for (const e of embed)
          if (!r.embeds.includes(e))
            throw new QueryError('embed', `Unknown embed "${e}". ${r.path} can embed: ${r.embeds.join(', ')}.`);
      } else throw new QueryError(k, `Unknown query parameter "${k}" for this endpoint.`);
    }
    return embed;
  }

  async function readJson(c: Context<Env>): Promise<unknown> {
    const type = c.req.header('content-type') ?? '';
    const [mime = '', ...params] = type.split(';').map((s) => s.trim().toLowerCase());
    const charset = params.find((p) => p.startsWith('charset='))?.slice(8);
    if (mime !== 'application/json' || (charset && charset !== 'utf-8' && charset !== 'utf8'))
      throw new ApiError(
        415,
        `The request body must be sent as Content-Type: application/json (got "${type || 'none'}").`,
      );
    const text = await c.req.text();
    c.set('bodyRead', true);
    if (text.trim() === '') throw new ApiError(400, 'The request body is empty; send a JSON object.');
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ApiError(400, `The request body is not valid JSON: ${(e as Error).message}.`);
    }
  }

  function origin(c: Context<Env>): string {
    return new URL(c.req.url).origin;
  }

  function pageLink(c: Context<Env>, page: number): string {
    const u = new URL(c.req.url);
    u.searchParams.set('page', String(page));
    return u.toString();
  }

  for (const r of RESOURCES) {
    const base = `/${r.path}`;
    const item = `${base}/:uuid`;
    const allow: Record<string, string[]> = { [base]: [], [item]: [] };

    if (r.verbs.list) {
      allow[base]?.push('GET');
      app.get(base, (c) => {
        const p = authorize(c, relationScopes(c, r));
        const q = parseListQuery(r, new URL(c.req.url).searchParams, now());
        const { records, total } = repo.list(p.accountId, r, q);
        const totalPages = Math.max(1, Math.ceil(total / q.perPage));
        const links: Record<string, string> = {};
        if (q.page < totalPages) links.next = pageLink(c, q.page + 1);
        if (q.page > 1) links.previous = pageLink(c, Math.min(q.page - 1, totalPages));
        return c.json({
          data: records,
          meta: {
            pagination: {
              total,
              count: records.length,
              per_page: q.perPage,
              current_page: q.page,
              total_pages: totalPages,
              links,
            },
          },
        });
      });
    }
    if (r.verbs.create && !r.createUnderParent) {
      allow[base]?.push('POST');
      app.post(base, limitBody, async (c) => {
        const p = authorize(c, [scope(r, 'write')]);
        singleQuery(c, r, false);
        const body = validateBody(r, await readJson(c), 'create');
        const rec = repo.create(p.accountId, r, body);
        c.header('Location', `${origin(c)}${base}/${rec.uuid}`);
        return c.json({ data: rec }, 201);
      });
    }
    if (r.verbs.get) {
      allow[item]?.push('GET');
      app.get(item, (c) => {
        const p = authorize(c, [scope(r, 'read')]);
        const embed = singleQuery(c, r, true);
        return c.json({ data: repo.get(p.accountId, r, c.req.param('uuid') as string, embed) });
      });
    }
    if (r.verbs.update) {
      allow[item]?.push('PUT');
      app.put(item, limitBody, async (c) => {
        const p = authorize(c, [scope(r, 'write')]);
        singleQuery(c, r, false);
        const body = validateBody(r, await readJson(c), 'update');
        return c.json({ data: repo.update(p.accountId, r, c.req.param('uuid') as string, body) });
      });
    }
    if (r.verbs.delete) {
      allow[item]?.push('DELETE');
      app.delete(item, (c) => {
        const p = authorize(c, [scope(r, 'write')]);
        singleQuery(c, r, false);
        repo.delete(p.accountId, r, c.req.param('uuid') as string);
        return c.body(null, 204);
      });
    }
    if (r.hasNotes) {
      const notes = resourceByPath('notes');
      const path = `${item}/notes`;
      allow[path] = ['POST'];
      app.post(path, limitBody, async (c) => {
        const p = authorize(c, [scope(notes, 'write')]);
        singleQuery(c, notes, false);
        const body = validateBody(notes, await readJson(c), 'create');
        const rec = repo.create(p.accountId, notes, body, { resource: r, uuid: c.req.param('uuid') as string });
        c.header('Location', `${origin(c)}/notes/${rec.uuid}`);
        return c.json({ data: rec }, 201);
      });
    }
    for (const [path, methods] of Object.entries(allow)) {
      if (!methods.length) continue;
      const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
      app.all(path, (c) => {
        c.header('Allow', allowed.join(', '));
        const hint = r.path === 'notes' && c.req.method === 'PUT' ? ' Notes cannot be updated.' : '';
        return c.json({ message: `The ${c.req.method} method is not supported for this route.${hint}` }, 405);
      });
    }
  }
  return app;
}

/** A list with relational filters also reads the related resources. */
function relationScopes(c: Context<Env>, r: ResourceDef): string[] {
  const scopes = new Set([`${r.scope}.read`]);
  const keys = new URL(c.req.url).searchParams.keys();
  for (const k of keys) {
    const base = k.split('[')[0];
    const rel = r.relations?.find((x) => x.name === base);
    if (rel) scopes.add(`${resourceByPath(rel.target).scope}.read`);
    if (base === 'custom_fields' && r.customFieldEntity) scopes.add('custom-fields.read');
  }
  return [...scopes];
}
