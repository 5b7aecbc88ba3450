// Figure 5's baseline: page through GET /reminders with undici, one NDJSON line a record on stdout.
// Usage: node page-undici.mjs PER_PAGE (PM_BASE_URL, PM_TOKEN in the environment).
import { once } from 'node:events';
import { Pool } from 'undici';

const perPage = process.argv[2] ?? '100';
const base = new URL(process.env.PM_BASE_URL);
const headers = { authorization: `Bearer ${process.env.PM_TOKEN}`, accept: 'application/json' };
const pool = new Pool(base.origin, { connections: 1 });
for (let page = 1, pages = 1; page <= pages; page++) {
  const res = await pool.request({ path: `/reminders?per_page=${perPage}&page=${page}`, method: 'GET', headers });
  if (res.statusCode !== 200) throw new Error(`page ${page}: ${res.statusCode} ${await res.body.text()}`);
  const { data, meta } = await res.body.json();
  pages = meta.pagination.total_pages;
  let out = '';
  for (const rec of data) out += `${JSON.stringify(rec)}\n`;
  if (!process.stdout.write(out)) await once(process.stdout, 'drain');
}
await pool.close();
