// Figure 7's baseline for the lists that count their matches: the same count and page written by
// hand as the best plan SQLite allows, on the stack pm serve runs on (node:http and
// better-sqlite3, the same data file, read-only), with none of pm's work around it (no token, no
// query checks, no budget). A fuzzy value is looked up as one phrase of its search keys in the
// account's own rows of the keyed FTS5 index (its total counted from the index's keys alone), and
// its page is read from the order index, testing each row, when the matches are dense (one in 20
// or more), or from the matches, sorted, when they are not; an integer is counted and paged on
// its index, a time range on its own (their page from the order index when they are dense); an
// unfiltered page by its offset on the order index.
// Usage: node sqlite-lists.mjs DATA_FILE ACCOUNT_ID DIST_DIR
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { answer, columns, loadKeys, parseList, serve } from './lists-query.mjs';

const [file, account, dist] = process.argv.slice(2);
const accountId = Number(account);
const keys = await loadKeys(dist);
const db = new Database(file, { readonly: true });
const first = accountId * keys.span;
const last = first + keys.span - 1;
const kept = db.prepare('SELECT COUNT(*) AS n FROM properties WHERE account_id = ?').get(accountId).n;
const cols = columns('t');
const statements = new Map();
const prepared = (sql) => {
  if (!statements.has(sql)) statements.set(sql, db.prepare(sql));
  return statements.get(sql);
};
const order = 'ORDER BY t.created_at, t.id LIMIT ? OFFSET ?';

function list({ perPage, offset, filter: f }) {
  if (!f) {
    // Every record: the total counted once at start (the file is read-only), the page's ids found
    // on the order index alone, then their rows.
    const rows = prepared(
      `SELECT ${cols} FROM properties t WHERE t.id IN (SELECT id FROM properties WHERE account_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?) ORDER BY t.created_at, t.id`,
    ).all(accountId, perPage, offset);
    return { rows, total: kept };
  }
  if (f.kind === 'fuzzy') {
    const match = `"${keys.searchKeysOf(accountId, f.folded).join(' ')}"`;
    const where = `f."${f.column}" MATCH ? AND f.rowid BETWEEN ? AND ?`;
    const total = prepared(`SELECT COUNT(*) AS n FROM properties_fts f WHERE ${where}`).get(match, first, last).n;
    const rows =
      total * 20 >= kept
        ? prepared(
            `SELECT ${cols} FROM properties t WHERE t.account_id = ? AND instr(t."${f.column}", ?) > 0 ${order}`,
          ).all(accountId, f.folded, perPage, offset)
        : prepared(
            `SELECT ${cols} FROM properties_fts f CROSS JOIN properties t ON t.id = f.rowid - ? WHERE ${where} ${order}`,
          ).all(first, match, first, last, perPage, offset);
    return { rows, total };
  }
  const [where, params] =
    f.kind === 'int'
      ? [`t."${f.column}" = ?`, [f.value]]
      : [`t."${f.column}" >= ? AND t."${f.column}" < ?`, [f.start, f.end]];
  const w = `t.account_id = ? AND ${where}`;
  const total = prepared(`SELECT COUNT(*) AS n FROM properties t WHERE ${w}`).get(accountId, ...params).n;
  // Dense matches of a filter with an index of its own: the page walks the order index.
  const walk = total * 20 >= kept ? ' INDEXED BY properties_order' : '';
  const rows = prepared(`SELECT ${cols} FROM properties t${walk} WHERE ${w} ${order}`).all(
    accountId,
    ...params,
    perPage,
    offset,
  );
  return { rows, total };
}

const server = createServer((req, res) => {
  const q = parseList(req.url, keys.fold);
  if (!q) {
    res.writeHead(400).end();
    return;
  }
  const { rows, total } = list(q);
  const body = answer(rows, total, q.perPage, q.offset);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
serve(server, 'sqlite lists');
