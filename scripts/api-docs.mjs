/**
 * The parts of docs/api.md that the descriptions say: written between markers
 * (`<!-- generated: NAME -->` ... `<!-- end generated -->`) from the built code (dist), so that a
 * field, filter, route or scope added to src/resources reaches the page. Everything else on the
 * page is written by hand. test/docs.test.ts fails when the page is not what this makes of it.
 *
 *   npm run docs      (builds, then writes docs/api.md again)
 *
 * The endpoints table keeps each row's Notes cell (matched by method and path): the notes are
 * the page's; which rows there are is the route table's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const { CUSTOM_VALUES_KEY, filterFields, filterRelationsOf, namedBy, RESOURCES } = await import(
  new URL('dist/resources/index.js', root).href
);
const { allRoutes } = await import(new URL('dist/server/routes.js', root).href);

const SUCCESS = { list: '200 list', get: '200', create: '201', update: '200', delete: '204' };
const code = (s) => `\`${s}\``;

/** Each resource's scopes. */
function scopes() {
  const rows = RESOURCES.map((r) => `| ${r.plural} | ${code(`${r.scope}.read`)}, ${code(`${r.scope}.write`)} |`);
  return ['| Resource | Scopes |', '|---|---|', ...rows];
}

/** The filters of each resource's list: its fields', then its relations', then its custom values'. */
function filters() {
  const rows = RESOURCES.map((r) => {
    const names = filterFields(r).map((f) => code(f.name));
    for (const rel of filterRelationsOf(r))
      names.push(code(namedBy(rel) ? `${rel.name}[${rel.by.join('\\|')}]` : `${rel.name}[...]`));
    if (r.customValues) names.push(code(`${CUSTOM_VALUES_KEY}[...]`));
    return `| ${r.path} | ${names.join(', ')} |`;
  });
  return ['| Resource | Filters |', '|---|---|', ...rows];
}

/** The record routes, each with the Notes cell the page has for it. */
function endpoints(old) {
  const notes = new Map();
  for (const line of old) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length >= 5) notes.set(`${cells[1]} ${cells[2]}`, cells[4]);
  }
  // A resource's rows as the page reads them: list, get, create, update, delete, then the
  // creates under one of its records.
  const rank = (op, nested) => (nested ? 5 : ['list', 'get', 'create', 'update', 'delete'].indexOf(op));
  const rows = allRoutes()
    .flatMap((route, i) =>
      [...route.endpoints].map(([method, e]) => {
        const path = code(route.template.replace('{uuid}', ':uuid'));
        const note = notes.get(`${method} ${path}`) ?? '';
        const group = RESOURCES.indexOf(route.resource);
        return {
          key: [group, rank(e.op, e.parent !== undefined), i],
          row: `| ${method} | ${path} | ${SUCCESS[e.op]} | ${note} |`,
        };
      }),
    )
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2])
    .map((x) => x.row.replace(/ {2}\|$/, ' |'));
  return ['| Method | Path | Success | Notes |', '|---|---|---|---|', ...rows];
}

const SECTIONS = { scopes, filters, endpoints };

/** The page with every generated section made again from the descriptions. */
export function generate(text) {
  const seen = new Set();
  const out = text.replace(
    /(<!-- generated: ([a-z-]+) -->\n)([\s\S]*?)(<!-- end generated -->)/g,
    (_, open, name, body, close) => {
      const make = SECTIONS[name];
      if (!make) throw new Error(`docs/api.md: no generated section "${name}"`);
      seen.add(name);
      return `${open}${make(body.split('\n').filter((l) => l.startsWith('|'))).join('\n')}\n${close}`;
    },
  );
  const missing = Object.keys(SECTIONS).filter((n) => !seen.has(n));
  if (missing.length) throw new Error(`docs/api.md: no markers for ${missing.join(', ')}`);
  return out;
}

export const API_DOCS = fileURLToPath(new URL('docs/api.md', root));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const before = readFileSync(API_DOCS, 'utf8');
  const after = generate(before);
  if (after !== before) writeFileSync(API_DOCS, after);
  process.stdout.write(after === before ? 'docs/api.md is up to date\n' : 'docs/api.md written\n');
}
