/**
 * Test data written straight into a data file by the built store (dist): deterministic records,
 * through the repository or, for large sizes, one prepared statement over the store's own columns.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST } from './env.mjs';

const storeApis = new Map();

/**
 * openStore and friends from the built server (this checkout's, or the build in `dist`), to write
 * test data straight into a data file.
 */
export async function loadStoreApi(dist = DIST) {
  if (storeApis.has(dist)) return storeApis.get(dist);
  const load = (p) => import(pathToFileURL(join(dist, p)).href);
  const [server, validate, resources, columns, rows] = await Promise.all([
    load('server/index.js'),
    load('core/validate.js'),
    load('resources/index.js'),
    load('server/columns.js'),
    load('server/sql/rows.js'),
  ]);
  const storeApi = {
    openStore: server.openStore,
    bootstrap: server.bootstrap,
    validateBody: validate.validateBody,
    resourceByPath: resources.resourceByPath,
    describedColumns: columns.describedColumns,
    columnValues: rows.columnValues,
    withFolds: rows.withFolds,
  };
  storeApis.set(dist, storeApi);
  return storeApi;
}

/** A small deterministic random source, so that every run seeds the same records. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const CITIES = [
  'Leeds',
  'York',
  'Manchester',
  'Sheffield',
  'Bradford',
  'Hull',
  'Wakefield',
  'Harrogate',
  'Halifax',
  'Ripon',
];

export const TYPES = ['house', 'apartment', 'bungalow', 'commercial'];

function propertyBody(i, rnd) {
  return {
    address: `${1 + Math.floor(rnd() * 300)} ${['High', 'Church', 'Station', 'Park', 'Mill'][i % 5]} Street`,
    postcode: `LS${1 + (i % 28)} ${1 + Math.floor(rnd() * 9)}AA`,
    city: CITIES[Math.floor(rnd() * CITIES.length)],
    type: TYPES[Math.floor(rnd() * TYPES.length)],
    bedrooms: Math.floor(rnd() * 6),
    bathrooms: 1 + Math.floor(rnd() * 3),
    has_garage: rnd() < 0.3,
    has_garden: rnd() < 0.6,
  };
}

export function reminderBody(i) {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return {
    title: `Renew gas safety certificate ${i + 1}`,
    description: i % 4 ? null : 'Book the engineer and send the certificate to the tenant.',
    due_at: i % 3 ? `2027-01-${day}T09:30:00Z` : `2027-02-${day}`,
  };
}

/**
 * Creates a data file (and its token, as pm serve would) holding `properties` properties and
 * `reminders` reminders. Properties and the first reminders go through the repository; past
 * 1,000 reminders, those are copied in SQL with new uuids and later creation times (fast).
 */
export async function seed(file, { properties = 0, reminders = 0 } = {}) {
  const { openStore, bootstrap, validateBody, resourceByPath } = await loadStoreApi();
  let tick = 0;
  const start = Date.parse('2026-01-01T00:00:00Z');
  const store = openStore(file, () => start + tick);
  try {
    bootstrap(store);
    const accountId = store.firstUser().accountId;
    const db = store.db;
    db.transaction(() => {
      const rp = resourceByPath('properties');
      const rnd = prng(42);
      for (let i = 0; i < properties; i++) {
        tick = i * 1000;
        store.create(accountId, rp, validateBody(rp, propertyBody(i, rnd), 'create'));
      }
      const rr = resourceByPath('reminders');
      const TEMPLATE = 1000;
      const made = Math.min(reminders, TEMPLATE);
      for (let i = 0; i < made; i++) {
        tick = i;
        store.create(accountId, rr, validateBody(rr, reminderBody(i), 'create'));
      }
      if (reminders > made) {
        // Copies of the first TEMPLATE reminders, block after block, each with a new uuid and
        // created_at TEMPLATE ms after its original's, so that the list order is the copy order.
        db.function('bench_uuid', () => randomUUID());
        const skip = new Set(['id', 'uuid', 'created_at', 'updated_at']);
        const cols = db
          .pragma(`table_info(${rr.table})`)
          .map((c) => c.name)
          .filter((c) => !skip.has(c));
        const blocks = Math.ceil(reminders / TEMPLATE) - 1;
        db.prepare(
          `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
           INSERT INTO ${rr.table} (uuid, created_at, updated_at, ${cols.map((c) => `"${c}"`).join(', ')})
           SELECT bench_uuid(), t.created_at + seq.n * ?, t.updated_at + seq.n * ?, ${cols.map((c) => `t."${c}"`).join(', ')}
           FROM seq CROSS JOIN (SELECT * FROM ${rr.table} WHERE account_id = ? ORDER BY id LIMIT ?) t
           ORDER BY seq.n, t.id LIMIT ?`,
        ).run(blocks, TEMPLATE, TEMPLATE, accountId, TEMPLATE, reminders - made);
      }
    })();
  } finally {
    store.close();
  }
  return readFileSync(`${file}.token`, 'utf8').trim();
}

/**
 * Properties written straight into a data file's table with one prepared statement in one
 * transaction (the store's own columns, fold columns included, and whatever its triggers keep):
 * a million in seconds. Deterministic: the same records every run. `accountId`: another account's
 * (the first account's by default); `dist`: another build's store (this checkout's by default).
 */
export async function seedProperties(file, count, { accountId: account, dist } = {}) {
  const { openStore, bootstrap, resourceByPath, describedColumns, columnValues, withFolds } = await loadStoreApi(dist);
  const store = openStore(file);
  try {
    bootstrap(store);
    const accountId = account ?? store.firstUser().accountId;
    const db = store.db;
    const r = resourceByPath('properties');
    // The table's columns as the store makes them (columns.ts), and each row's values as it writes
    // them: each field's kind stores its value, and its fold column is folded as a filter folds.
    const cols = describedColumns(r)
      .map((c) => c.name)
      .filter((c) => c !== 'id');
    const insert = db.prepare(
      `INSERT INTO ${r.table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    );
    // What a create leaves out takes its default, as the store's create gives it.
    const defaults = Object.fromEntries(
      r.fields.filter((f) => f.default !== undefined && !f.readOnly).map((f) => [f.name, f.default]),
    );
    const rnd = prng(7);
    const start = Date.parse('2020-01-01T00:00:00Z');
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const row = Object.fromEntries(cols.map((c) => [c, null]));
        const values = columnValues(r, { ...defaults, ...propertyBody(i, rnd) });
        withFolds(r, values);
        Object.assign(row, values, {
          account_id: accountId,
          uuid: randomUUID(),
          created_at: start + i * 1000,
          updated_at: start + i * 1000,
        });
        insert.run(row);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
}
