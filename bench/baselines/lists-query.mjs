// What the list baselines of figures 7 and 8 share: a request's one filter read from its query
// string (the request kinds of bench/figures/scale.mjs, each a single filter), folded and keyed as
// the store keeps it, and the JSON answer's shape. The functions that fold a value and make its
// search keys are the built store's own (dist), so that both sides look up the same keys.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function loadKeys(dist) {
  const load = (p) => import(pathToFileURL(join(dist, p)).href);
  const [{ fold }, { searchKeysOf, distinctSearchKeys }, { TRIGRAM_ACCOUNT_SPAN }] = await Promise.all([
    load('server/columns.js'),
    load('server/search-keys.js'),
    load('server/tables.js'),
  ]);
  return { fold, searchKeysOf, distinctSearchKeys, span: TRIGRAM_ACCOUNT_SPAN };
}

/** Which filter kinds the baselines answer: the column and how its value folds. */
const FUZZY = { city: 'fuzzy', address: 'fuzzy', postcode: 'postcode' };

/**
 * The list a request asks for: `{perPage, offset, filter}`, the filter undefined (every record) or one of
 * `{kind: 'int', column, value}`, `{kind: 'fuzzy', column, folded}` or
 * `{kind: 'range', column, start, end}` (ms, the end not included); undefined for any other query.
 */
export function parseList(url, fold) {
  const q = new URL(url, 'http://x').searchParams;
  const perPage = Number(q.get('per_page') ?? 10);
  const offset = (Number(q.get('page') ?? 1) - 1) * perPage;
  const named = [...q.keys()].filter((k) => k !== 'per_page' && k !== 'page');
  if (!named.length) return { perPage, offset, filter: undefined };
  if (named.length !== 1) return undefined;
  const [name] = named;
  const v = q.get(name) ?? '';
  if (name === 'bedrooms') return { perPage, offset, filter: { kind: 'int', column: name, value: Number(v) } };
  if (FUZZY[name])
    return { perPage, offset, filter: { kind: 'fuzzy', column: `${name}_fold`, folded: fold(v, FUZZY[name]) } };
  if (name === 'created_at' || name === 'updated_at') {
    const [a, b] = v.split('/');
    return { perPage, offset, filter: { kind: 'range', column: name, start: Date.parse(a), end: Date.parse(b) } };
  }
  return undefined;
}

const iso = (ms) => new Date(Number(ms)).toISOString();

/** The answer: the page's rows (times as ISO text) and the total, as pm's list gives them. */
export function answer(rows, total, perPage, offset) {
  const data = rows.map((r) => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) }));
  return JSON.stringify({
    data,
    meta: {
      pagination: {
        total: Number(total),
        count: data.length,
        per_page: perPage,
        current_page: offset / perPage + 1,
        total_pages: Math.max(1, Math.ceil(Number(total) / perPage)),
        links: {},
      },
    },
  });
}

const COLUMNS =
  'uuid, created_at, updated_at, address, address2, city, county, postcode, type, bedrooms, bathrooms, has_garage, has_garden, has_parking';

/** A page's columns, of the table aliased `t`: the fields and the live counts the answer carries. */
export function columns(t) {
  return [
    ...COLUMNS.split(', ').map((c) => `${t}.${c}`),
    `(SELECT COUNT(*) FROM attachments c WHERE c.property_id = ${t}.id) AS num_attachments`,
    `(SELECT COUNT(*) FROM notes c WHERE c.property_id = ${t}.id) AS num_notes`,
  ].join(', ');
}

/** Listens on a free loopback port and says so on stderr; stops on SIGTERM or SIGINT. */
export function serve(server, what, close = async () => {}) {
  server.listen(0, '127.0.0.1', () => {
    process.stderr.write(`${what}: listening on http://127.0.0.1:${server.address().port}\n`);
  });
  const stop = () => server.close(() => close().then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
