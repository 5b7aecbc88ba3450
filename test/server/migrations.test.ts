/**
 * The schema's history: a data file made by pm 0.1.0 opens, upgrades and keeps every record; the
 * schema the migrations make matches the descriptions (a field added without a migration fails
 * here); and each released migration is pinned, so that history never changes under a data file.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, RESOURCES } from '../../src/resources/index.js';
import { describedColumns } from '../../src/server/columns.js';
import { openDatabase, withFunctions } from '../../src/server/db.js';
import { openStore, startServer } from '../../src/server/index.js';
import { PG_MIGRATIONS } from '../../src/server/postgres/schema.js';
import { migrations, SCHEMA_VERSION } from '../../src/server/schema.js';
import { makeApi } from '../helpers/server.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'pm-0.1.0.db');
const dir = mkdtempSync(join(tmpdir(), 'pm-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function copyOfFixture(): string {
  const file = join(dir, `old-${++n}.db`);
  copyFileSync(FIXTURE, file);
  return file;
}

/** The schema a database holds: every table and index statement, in a stable order. */
function schemaOf(db: BetterSqlite3.Database): string {
  return (
    db.prepare('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name').all() as {
      sql: string;
    }[]
  )
    .map((r) => r.sql)
    .join(';\n');
}

/** A database with the first `count` migrations applied, as pm would apply them. */
function migratedTo(count: number): BetterSqlite3.Database {
  const db = withFunctions(new Database(':memory:'));
  for (const m of migrations().slice(0, count)) {
    if (typeof m === 'function') m(db);
    else for (const sql of m) db.exec(sql);
  }
  return db;
}

const counts = (db: BetterSqlite3.Database) =>
  Object.fromEntries(
    ['accounts', 'tokens', 'contacts', 'properties', 'custom_fields', 'custom_values', 'notes', 'reminders'].map(
      (t) => [t, (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n],
    ),
  );

describe('a data file made by pm 0.1.0', () => {
  it('opens, is upgraded to the latest schema, and keeps every record', () => {
    const file = copyOfFixture();
    const before = new Database(file, { readonly: true });
    expect(before.pragma('user_version', { simple: true })).toBe(1);
    const had = counts(before);
    before.close();
    expect(had).toEqual({
      accounts: 1,
      tokens: 1,
      contacts: 2,
      properties: 2,
      custom_fields: 2,
      custom_values: 2,
      notes: 2,
      reminders: 3,
    });

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations().length);
    expect(counts(db)).toEqual(had);
    db.close();
    // Opening it again changes nothing.
    const again = openDatabase(file);
    expect(counts(again)).toEqual(had);
    again.close();
  });

  it('answers the API over its old records, fuzzy filters and custom values included', async () => {
    const file = copyOfFixture();
    const store = openStore(file);
    const owner = store.firstUser();
    const { token } = store.createToken(owner?.userId as number, 'test', ALL_SCOPES);
    const server = await startServer({ dataFile: file, store });
    try {
      const api = makeApi(server.url, token);
      const list = async (path: string) => (await api('GET', path)).body;
      expect((await list('/properties')).meta.pagination.total).toBe(2);
      const alesund = await list('/properties?city=%C3%A5lesund&embed=custom_fields,contact');
      expect(alesund.data).toHaveLength(1);
      expect(alesund.data[0]).toMatchObject({
        address: '1 High St',
        bedrooms: 3,
        has_garage: true,
        num_notes: 1,
        custom_fields: { data: [{ name: 'colour', value: 'Dark Red' }] },
        contact: { data: { email: 'ann@example.com' } },
      });
      expect((await list('/properties?postcode=ls11aa')).data).toHaveLength(1);
      expect((await list('/properties?custom_fields[value]=dark%20red')).data).toHaveLength(1);
      expect((await list('/contacts?company=%C3%A5lesund')).data.map((c: { name: string }) => c.name)).toEqual([
        'Ann Ångström',
      ]);
      expect((await list('/contacts?custom_fields[value]=%C3%A9t%C3%A9')).data).toHaveLength(1);
      expect((await list('/contacts?postcode=sw1a1aa')).data).toHaveLength(1);
      expect((await list('/custom-fields?label=r%C3%A9f')).data[0].name).toBe('reference');
      expect((await list('/notes?property[city]=%C3%85LESUND')).data[0].content).toMatch(/^Boiler/);
      const reminders = (await list('/reminders')).data;
      expect(reminders.map((r: { due_at: string | null; anytime: boolean }) => [r.due_at, r.anytime])).toEqual([
        ['2026-12-01', true],
        ['2027-01-15T10:30:00+00:00', false],
        [null, false],
      ]);
      expect((await list('/reminders?title=gas')).data).toHaveLength(1);
      // Migration 8: the old reminders are about nothing, not done, and do not repeat; they can be.
      expect((await list('/reminders?done=false&embed=property')).data).toMatchObject(
        reminders.map(() => ({ done: false, done_at: null, repeat: null, property: { data: null } })),
      );
      const first = reminders[0] as { uuid: string };
      const yearly = await api('PUT', `/reminders/${first.uuid}`, { repeat: 'P1Y', done_at: '2026-12-02T09:00:00Z' });
      expect(yearly.body.data).toMatchObject({ due_at: '2027-12-01', last_done_at: '2026-12-02T09:00:00+00:00' });
      // And it takes new records as any data file does.
      const created = await api('POST', '/properties', {
        address: '3 Mill Lane',
        postcode: 'LS2 7EW',
        city: 'Ålesund',
      });
      expect(created.status).toBe(201);
      expect((await list('/properties?city=%C3%85LESUND')).data).toHaveLength(2);
    } finally {
      await server.close();
      store.close();
    }
  });

  it('its full token becomes a full-scope token: it reads and writes statuses, types and competencies', async () => {
    const file = copyOfFixture();
    // The fixture's token, under a hash of a token the test knows (its scopes are the fixture's own).
    const known = 'pm_known-token-of-the-fixture';
    const old = new Database(file);
    expect(old.prepare('SELECT scopes FROM tokens').pluck().get()).toBe(ALL_SCOPES.slice(0, 10).join(' '));
    old.prepare('UPDATE tokens SET hash = ?').run(createHash('sha256').update(known).digest('hex'));
    old.close();
    const server = await startServer({ dataFile: file });
    try {
      const api = makeApi(server.url, known);
      for (const path of ['/statuses', '/types', '/competencies']) {
        expect((await api('GET', path)).status, path).toBe(200);
        expect((await api('POST', path, { label: 'Active', type: { code: 1 } })).status, path).toBe(
          path === '/statuses' ? 201 : 422,
        );
      }
      expect((await api('GET', '/properties?embed=status')).body.data[0].status).toEqual({ data: null });
    } finally {
      await server.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT scopes FROM tokens').pluck().get()).toBe('*');
    db.close();
  });

  it('a token with some scopes keeps exactly those', async () => {
    const file = copyOfFixture();
    const known = 'pm_known-token-of-the-fixture';
    const old = new Database(file);
    old
      .prepare('UPDATE tokens SET hash = ?, scopes = ?')
      .run(
        createHash('sha256').update(known).digest('hex'),
        'properties.read contacts.read custom-fields.read notes.read reminders.read reminders.write',
      );
    old.close();
    const server = await startServer({ dataFile: file });
    try {
      const api = makeApi(server.url, known);
      expect((await api('GET', '/properties')).status).toBe(200);
      expect((await api('GET', '/statuses')).status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it('a file of a build that made the fold columns within migration 1 is upgraded too', () => {
    // Builds between 0.1.0 and migration 2 created the fold columns in migration 1.
    const file = join(dir, 'between.db');
    // Their schema: migration 1 and the fold columns, nothing later.
    const made = new Database(file);
    for (const m of migrations().slice(0, 2)) {
      if (typeof m === 'function') m(made);
      else for (const sql of m) made.exec(sql);
    }
    made.exec(`INSERT INTO accounts (name, created_at) VALUES ('a', 0)`);
    made.exec(
      `INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, city, city_fold)
       VALUES (1, 'u', 0, 0, 'x', 'LS1 1AA', 'ÅLESUND', NULL)`,
    );
    made.pragma('user_version = 1');
    made.close();
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations().length);
    expect(db.prepare('SELECT city_fold, postcode_fold FROM properties').get()).toEqual({
      city_fold: 'ålesund',
      postcode_fold: 'ls11aa',
    });
    db.close();
  });

  it('a file of a pm whose labels were not unique keeps its duplicates, renamed after the oldest', () => {
    // The migrations before the one that made labels unique, and two of a label in each catalogue.
    const file = join(dir, 'labels.db');
    const made = withFunctions(new Database(file));
    const before = migrations().findIndex((m) => typeof m !== 'function' && m.some((x) => x.includes('_labelled')));
    for (const m of migrations().slice(0, before)) {
      if (typeof m === 'function') m(made);
      else for (const sql of m) made.exec(sql);
    }
    made.exec(`INSERT INTO accounts (name, created_at) VALUES ('a', 0), ('b', 0)`);
    const label = made.prepare(
      'INSERT INTO statuses (account_id, uuid, created_at, updated_at, label, label_fold, "type") VALUES (?, ?, 0, 0, ?, ?, ?) RETURNING id',
    );
    const ids = [
      [1, 'a0000000-0000-4000-8000-000000000001', 'For Let', 2],
      [1, 'a0000000-0000-4000-8000-000000000002', 'FOR LET', 2],
      [1, 'a0000000-0000-4000-8000-000000000003', 'for let', 1],
      [2, 'a0000000-0000-4000-8000-000000000004', 'for let', 2],
      [1, 'a0000000-0000-4000-8000-000000000005', 'for let', 2],
    ].map(([a, u, l, t]) => (label.get(a, u, l, String(l).toLowerCase(), t) as { id: number }).id);
    made.exec(`INSERT INTO competencies (account_id, uuid, created_at, updated_at, label, label_fold)
      VALUES (1, 'c1', 0, 0, 'Plumbing', 'plumbing'), (1, 'c2', 0, 0, 'plumbing', 'plumbing')`);
    made.exec(`INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, status_id)
      VALUES (1, 'p1', 0, 0, 'x', 'y', ${ids[1]})`);
    made.pragma(`user_version = ${before}`);
    made.close();

    const db = openDatabase(file);
    const labels = db.prepare('SELECT uuid, label, label_fold FROM statuses ORDER BY id').all();
    expect(labels.map((x) => (x as { label: string }).label)).toEqual([
      'For Let',
      'FOR LET (a0000000-0000-4000-8000-000000000002)',
      'for let',
      'for let',
      'for let (a0000000-0000-4000-8000-000000000005)',
    ]);
    expect((labels[1] as { label_fold: string }).label_fold).toBe('for let (a0000000-0000-4000-8000-000000000002)');
    expect(db.prepare('SELECT label FROM competencies ORDER BY id').pluck().all()).toEqual([
      'Plumbing',
      'plumbing (c2)',
    ]);
    // Every reference kept, and the search index holds the new words.
    expect(db.prepare('SELECT status_id FROM properties').pluck().get()).toBe(ids[1]);
    const found = db
      .prepare(`SELECT COUNT(*) FROM statuses_fts WHERE statuses_fts MATCH pm_search_keys(1, '000005')`)
      .pluck()
      .get();
    expect(found).toBe(1);
    expect(() =>
      db
        .prepare(
          `INSERT INTO types (account_id, uuid, created_at, updated_at, label, label_fold) VALUES (1, 't1', 0, 0, 'A', 'a'), (1, 't2', 0, 0, 'a', 'a')`,
        )
        .run(),
    ).toThrow(/UNIQUE/);
    db.close();
  });

  it('a file newer than this pm is refused', () => {
    const file = copyOfFixture();
    const db = new Database(file);
    db.pragma(`user_version = ${migrations().length + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this pm knows/);
  });

  it('the version a current file is known by is the number of migrations', () => {
    expect(SCHEMA_VERSION).toBe(migrations().length);
  });
});

describe('the schema the migrations make', () => {
  const db = migratedTo(migrations().length);
  for (const r of RESOURCES)
    it(`has exactly the columns the ${r.path} description implies`, () => {
      const actual = (
        db.pragma(`table_info(${r.table})`) as { name: string; type: string; notnull: number; pk: number }[]
      ).map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1 }));
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect(actual.sort(byName)).toEqual(describedColumns(r).sort(byName));
    });
});

describe('released migrations are history', () => {
  // A released migration must never change: these are the schemas that migrations 1 and 1-2
  // make. A change to the schema is a new migration at the end of migrations().
  const pinned = [
    ['1 (pm 0.1.0)', 1, 'c5625a8a907b753616d9288d0eca70217fa1eda1a683dc47a666db1e417d252c'],
    ['2 (folded columns)', 2, 'df74db74e4f8f32419741a0a4d998cf5c604568446ae409aa4d1bc8c27835795'],
    [
      '3 (counts, order blocks, trigram indexes)',
      3,
      'c2c55b7c401d57775d3369f022747a6d37ac9cee8ced9189f398d70087eae87c',
    ],
    [
      '4 (statuses, types, competencies: table specs)',
      4,
      '64caee64254a31f3f6b0542fef9d87dee8ad068a3f3f172d50a8f62f9837224c',
    ],
    [
      '5 (search indexes keyed by account, writes counted per account)',
      5,
      '3fec98bc410efbe46ec634aa0efdba0139751c899f96b25398aaee8e5b27c411',
    ],
    [
      "6 (calendar feeds, reminders' deletes stamped)",
      6,
      'd82346412afc838ec1b68f8ba9715bed45b3b7815bc97b1b0b89aeb378a119a5',
    ],
    [
      '7 (attachments and their chunks of bytes)',
      7,
      'edf9301ef2c65b512f24911c2363c7467e69b5d55c6f49fc0bd02dd7a35289ad',
    ],
    ['8 (idempotency keys)', 8, '86b155ddcd7324427b9954ef7f41c8b71c04f295cdd132ac2e488cc7ab77c885'],
    ['9 (a calendar feed ends with its token)', 9, 'caaf4072393271ac7361338c8000c2b638a721cea5dfc1bf357f06d82e0eb9b8'],
    ['10 (labels unique, duplicates renamed)', 10, '18d486549529081b0b62f3d701ea7f6a17b096198cce51656afddeef61982199'],
    [
      "11 (reminders' property, contact, done and repeat; attachments' expiry)",
      11,
      '6c3a0a1ea89de7ca61321ca27a59b240e68e3224310746257964bf257d6f7299',
    ],
    [
      "12 (update blocks: each account's records in blocks by update time)",
      12,
      '804d4b288842e4eb24ae347dba1d75c4433d4d08ea7776f6b16e368011d69e8b',
    ],
  ] as const;
  // PostgreSQL's, as the text of each migration's statements.
  const pinnedPg = [
    '5cda77c46a77811976dc5fff88744d2c164c6acd8bf2ecbae2cd2eef61555637',
    'c6945afc29918b13371fe1cf521b8d9a2586e9ed870250c65a0468380f061a41',
    'f2499648ea00c3a2a6815661518cb27f585985b2f15e0c874d025492ccf5ba42',
    '3858af0a0504c213ca7437a8c54e37085a513f24dbc49ec521319e2c13a2ea74',
    'f2a52c346b63bfb1c8fc8c09632a10637b44d5a81b29e7c4706a8e41fa0939b9',
    'd2a588ba2f0fed391f62cef4804cd9a68106650276a797776c739d43f8d28507',
    '7fd588566118a8a19192adec31cb2c38af8ea2d391b34c5eaaaf5b7e0d29ea02',
    // 8, PostgreSQL's alone (attachment chunks stored uncompressed): SQLite stays at 7.
    '332dc05f0092c45d90a50f01e51d176b529c4de81cc6036a2d5eecf308184494',
    // 9, the shared 8 (idempotency keys).
    '9c7b3b9108ef1f008d420375c7e062b83b6d9289abd288b222775428730d04a1',
    // 10: SQLite's 9 (a feed's token; and here, each feed's rate-limit window).
    'eaf1beb77751ae4341c0492cb9f6573c3bc9ab2dcc60c7adb1c8e511fc35c27e',
    // 11: SQLite's 10 (labels unique).
    '0c29b724e087a67e7c986c846bce89aac6d48df3cbae72c4142fbad04b212d24',
    // 12: SQLite's 11 (reminders' property, contact, done and repeat; attachments' expiry).
    'dad777fa56e6dae3b206388eb3b3214c081941ef75320251667bff14f81f317e',
    // 13: SQLite's 12 (update blocks, SQLite's alone: nothing here but the version).
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  ];
  it('every migration of both stores is pinned (a new one needs its pins here)', () => {
    expect(pinned.map(([, count]) => count)).toEqual(migrations().map((_, i) => i + 1));
    expect(pinnedPg).toHaveLength(PG_MIGRATIONS.length);
  });
  pinnedPg.forEach((hash, i) =>
    it(`PostgreSQL migration ${i + 1} is the text it always was`, () => {
      const text = (PG_MIGRATIONS[i] as readonly string[]).join(';\n');
      expect(createHash('sha256').update(text).digest('hex')).toBe(hash);
    }),
  );
  it('migration 1 makes the schema pm 0.1.0 made', () => {
    const old = new Database(FIXTURE, { readonly: true });
    expect(schemaOf(migratedTo(1))).toBe(schemaOf(old));
    old.close();
  });
  for (const [name, count, hash] of pinned)
    it(`migration ${name} makes the schema it always made`, () => {
      const digest = createHash('sha256')
        .update(schemaOf(migratedTo(count)))
        .digest('hex');
      expect(digest).toBe(hash);
    });
});
