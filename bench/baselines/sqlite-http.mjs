// Figure 6's baseline: the same filtered page that `pm serve` answers, written directly on the
// stack pm serve runs on (node:http and better-sqlite3, one prepared statement for the page and
// one for its total), with none of pm's work around it (no token, no query checks, no routing).
// The limit of this stack for this request. Usage: node sqlite-http.mjs DATA_FILE
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const db = new Database(process.argv[2], { readonly: true });
const cols =
  'uuid, created_at, updated_at, address, address2, city, county, postcode, type, bedrooms, bathrooms, has_garage, has_garden, has_parking';
const where = 'account_id = 1 AND instr(city_fold, ?) > 0 AND bedrooms = ?';
const page = db.prepare(`SELECT ${cols} FROM properties WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`);
const count = db.prepare(`SELECT COUNT(*) AS n FROM properties WHERE ${where}`);
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`;

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const city = (url.searchParams.get('city') ?? '').toLowerCase();
  const bedrooms = Number(url.searchParams.get('bedrooms'));
  const perPage = Number(url.searchParams.get('per_page') ?? 10);
  const current = Number(url.searchParams.get('page') ?? 1);
  const total = count.get(city, bedrooms).n;
  const data = page.all(city, bedrooms, perPage, (current - 1) * perPage).map((r) => ({
    ...r,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    has_garage: r.has_garage === 1,
    has_garden: r.has_garden === 1,
    has_parking: r.has_parking === 1,
    num_attachments: 0,
    num_notes: 0,
  }));
  const body = JSON.stringify({
    data,
    meta: {
      pagination: {
        total,
        count: data.length,
        per_page: perPage,
        current_page: current,
        total_pages: Math.max(1, Math.ceil(total / perPage)),
        links: {},
      },
    },
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`sqlite node:http: listening on http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
