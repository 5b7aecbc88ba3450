// Figure 8's baseline for the lists that count their matches: the same count and page written by
// hand as the best plan PostgreSQL allows, on the stack pm serve runs on (node:http and
// node-postgres, the same database), with none of pm's work around it (no token, no query checks,
// no budget): one statement a list, its count joined to its page. A fuzzy value is looked up in
// the GIN index of its column's search keys (the rows holding every key of the value) and tested
// with LIKE; an integer and a time range on their btree indexes; an unfiltered page by its offset
// on the order index, the total counted once at start.
// Usage: node pg-lists.mjs DATABASE_URL ACCOUNT_ID DIST_DIR
import { createServer } from 'node:http';
import pg from 'pg';
import { answer, columns, loadKeys, parseList, serve } from './lists-query.mjs';

const [url, account, dist] = process.argv.slice(2);
const accountId = Number(account);
const keys = await loadKeys(dist);
const pool = new pg.Pool({ connectionString: url, max: 4 });
const like = (s) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The account's records, counted once at start (nothing is written while the figure runs). */
const kept = Number(
  (await pool.query('SELECT COUNT(*) AS n FROM properties WHERE account_id = $1', [accountId])).rows[0].n,
);

async function list({ perPage, offset, filter: f }) {
  if (!f) {
    const { rows } = await pool.query({
      text: `SELECT ${columns('t')} FROM properties t WHERE t.id IN (SELECT id FROM properties WHERE account_id = $1
             ORDER BY created_at, id LIMIT $2 OFFSET $3) ORDER BY t.created_at, t.id`,
      values: [accountId, perPage, offset],
    });
    return { rows, total: kept };
  }
  const params = [accountId];
  let where;
  if (f.kind === 'fuzzy') {
    params.push(keys.distinctSearchKeys(accountId, f.folded), like(f.folded));
    where = `"${f.column.replace(/_fold$/, '_keys')}" @> $2::text[] AND "${f.column}" LIKE $3`;
  } else if (f.kind === 'int') {
    params.push(f.value);
    where = `"${f.column}" = $2`;
  } else {
    params.push(f.start, f.end);
    where = `"${f.column}" >= $2 AND "${f.column}" < $3`;
  }
  const n = params.length;
  const w = `account_id = $1 AND ${where}`;
  const { rows } = await pool.query({
    text: `SELECT c.n AS _total, p.* FROM (SELECT COUNT(*) AS n FROM properties WHERE ${w}) c
           LEFT JOIN LATERAL (SELECT ${columns('t')} FROM properties t WHERE ${w}
             ORDER BY t.created_at, t.id LIMIT $${n + 1} OFFSET $${n + 2}) p ON true`,
    values: [...params, perPage, offset],
  });
  const total = rows[0]?._total ?? 0;
  return { rows: rows.filter((r) => r.uuid !== null).map(({ _total, ...r }) => r), total };
}

const server = createServer((req, res) => {
  const q = parseList(req.url, keys.fold);
  if (!q) {
    res.writeHead(400).end();
    return;
  }
  list(q).then(
    ({ rows, total }) => {
      const body = answer(rows, total, q.perPage, q.offset);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
    (e) => {
      process.stderr.write(`pg lists: ${e.message}\n`);
      res.writeHead(500).end();
    },
  );
});
serve(server, 'pg lists', () => pool.end());
