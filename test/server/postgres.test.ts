/**
 * pm serve on PostgreSQL, beyond what the server suite checks on both stores: the schema the
 * migrations make, several instances on one database (a write through one read through the
 * other, a revoked token refused by both, one rate-limit budget, starting at the same moment),
 * a database newer than the code refused, 409 under concurrency from the unique constraint, the
 * same fuzzy matches as SQLite, /health, and losing the database (503 with Retry-After, then
 * recovery; during an upload streamed into its transaction, nothing of it kept). Runs in the `postgres` project; skips with one line where there is no PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, RESOURCES } from '../../src/resources/index.js';
import { describedColumns, keysColumnOf } from '../../src/server/columns.js';
import { searchKeysOf } from '../../src/server/search-keys.js';
import { openPostgres, type PostgresStore, type RunningServer, startServer } from '../../src/server/index.js';
import { PG_MIGRATIONS } from '../../src/server/postgres/schema.js';
import { type Cluster, createTestDatabase, pgMissing, startCluster, type TestDatabase } from '../helpers/postgres.js';
import { Clock, makeApi, startTestServer, TEST_STORE } from '../helpers/server.js';

if (pgMissing) console.warn(pgMissing);
const suite = describe.skipIf(pgMissing !== undefined);

type Running = RunningServer<PostgresStore>;

/** A new database on this file's own cluster, dropped after the file. */
let cluster: Cluster | undefined;
const databases: TestDatabase[] = [];
async function database(): Promise<TestDatabase> {
  cluster ??= process.env.PM_TEST_DATABASE_URL ? undefined : await startCluster();
  const db = await createTestDatabase(cluster);
  databases.push(db);
  return db;
}

afterAll(async () => {
  for (const d of databases) await d.drop().catch(() => {});
  cluster?.destroy();
});

async function tokenOf(store: PostgresStore): Promise<string> {
  const first = await store.firstUser();
  return (await store.createToken(first?.userId as number, 't', ALL_SCOPES)).token;
}

suite('PostgreSQL: the schema', () => {
  it('runs as the postgres project says', () => {
    expect(TEST_STORE).toBe('postgres');
  });

  it('migration 1 makes every column the descriptions imply, with their nullability', async () => {
    const db = await database();
    const store = await openPostgres(db.url);
    try {
      for (const r of RESOURCES) {
        const rows = await store.db.query(
          `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = ? ORDER BY column_name`,
          [r.table],
        );
        const actual = rows.map((c) => `${c.column_name}${c.is_nullable === 'NO' ? ' not null' : ''}`).sort();
        const expected = describedColumns(r)
          .map((c) => `${c.name}${c.notNull || c.name === 'id' ? ' not null' : ''}`)
          // PostgreSQL keeps each fold column's search keys beside it (migration 5).
          .concat(describedColumns(r).flatMap((c) => (c.name.endsWith('_fold') ? [keysColumnOf(c.name)] : [])))
          .sort();
        expect(actual, r.table).toEqual(expected);
      }
      expect((await store.db.query('SELECT version FROM pm_schema'))[0]?.version).toBe(PG_MIGRATIONS.length);
    } finally {
      await store.close();
    }
  });

  it("fuzzy filters are answered by GIN indexes of each fold column's search keys, led by the account (migration 5)", async () => {
    const db = await database();
    const store = await openPostgres(db.url);
    try {
      const indexes = (await store.db.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")).map(
        (r) => r.indexname,
      );
      for (const r of RESOURCES)
        for (const c of describedColumns(r).filter((x) => x.name.endsWith('_fold'))) {
          const field = c.name.replace(/_fold$/, '');
          expect(indexes).toContain(`${r.table}_${field}_keys`);
          // No trigram index every account shares is left.
          expect(indexes).not.toContain(`${r.table}_${field}_trgm`);
        }
      expect(indexes).not.toContain('custom_values_value_trgm');
      const plan = await store.db.write(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off', [], false);
        return tx.query(
          'EXPLAIN SELECT id FROM properties WHERE city_keys @> ?::text[] AND "city_fold" LIKE ?',
          [searchKeysOf(1, 'leeds'), '%leeds%'],
          false,
        );
      });
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('properties_city_keys');
    } finally {
      await store.close();
    }
  });

  it('migration 3 counts the records a database already holds, per account, and keeps them counted', async () => {
    const db = await database();
    const before = await startServer({ database: db.url, port: 0 });
    const api = makeApi(before.url, await tokenOf(before.store));
    for (let i = 0; i < 3; i++) await api('POST', '/properties', { address: `${i} Mill Lane`, postcode: 'LS1 1AA' });
    await api('POST', '/reminders', { title: 'one' });
    // Back to the schema of migration 2, as a database made before migration 3 was (migration 4's
    // tables, migration 5's search keys, migration 6's table, migration 7's and 8's dropped too).
    const keysColumnsDropped = RESOURCES.flatMap((r) =>
      describedColumns(r)
        .filter((c) => c.name.endsWith('_fold'))
        .map((c) => `ALTER TABLE IF EXISTS ${r.table} DROP COLUMN IF EXISTS ${keysColumnOf(c.name)};`),
    ).join(' ');
    await before.store.db.query(
      `ALTER TABLE reminders DROP COLUMN property_id, DROP COLUMN contact_id, DROP COLUMN done_at, DROP COLUMN repeat, DROP COLUMN last_done_at;
       DROP TABLE idempotency_keys; DROP TABLE attachment_chunks, attachments CASCADE; DROP FUNCTION pm_attachment_chunks_deleted CASCADE;
       DROP TABLE feed_rate_limits, calendar_feeds; DROP FUNCTION pm_stamp_deleted CASCADE;
       DROP TABLE contact_competencies, statuses, types, competencies CASCADE;
       ALTER TABLE properties DROP COLUMN IF EXISTS status_id; ALTER TABLE contacts DROP COLUMN IF EXISTS status_id, DROP COLUMN IF EXISTS type_id;
       DROP TABLE record_counts; DROP FUNCTION pm_count_inserted CASCADE; DROP FUNCTION pm_count_deleted CASCADE; UPDATE pm_schema SET version = 2;
       ${keysColumnsDropped}`,
      [],
      false,
    );
    await before.close();
    const after = await startServer({ database: db.url, port: 0 });
    try {
      const again = makeApi(after.url, await tokenOf(after.store));
      const total = async (path: string) => (await again('GET', `/${path}?per_page=1`)).body.meta.pagination.total;
      expect([await total('properties'), await total('reminders'), await total('notes')]).toEqual([3, 1, 0]);
      // Migration 5 wrote the search keys of the records already there: a fuzzy filter finds them.
      expect((await again('GET', '/properties?address=mill+la')).body.meta.pagination.total).toBe(3);
      await again('POST', '/properties', { address: '9 Mill Lane', postcode: 'LS1 1AA' });
      expect(await total('properties')).toBe(4);
      expect((await after.store.db.query('SELECT version FROM pm_schema'))[0]?.version).toBe(PG_MIGRATIONS.length);
    } finally {
      await after.close();
    }
  });

  it('a database at a schema version newer than this pm is refused, saying so', async () => {
    const db = await database();
    const store = await openPostgres(db.url);
    await store.db.query('UPDATE pm_schema SET version = ?', [PG_MIGRATIONS.length + 1]);
    await store.close();
    await expect(startServer({ database: db.url, port: 0 })).rejects.toThrow(
      `is at schema version ${PG_MIGRATIONS.length + 1}, newer than this pm knows (${PG_MIGRATIONS.length}); upgrade pm`,
    );
  });

  it('a database that cannot be reached is named without its password', async () => {
    const url = 'postgres://pm:s3cret-pass@127.0.0.1:1/pm';
    const err = await startServer({ database: url, port: 0 }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain('cannot connect to the database postgres://pm:***@127.0.0.1:1/pm');
    expect(err?.message).not.toContain('s3cret');
  });
});

suite('PostgreSQL: an instance running while another migrates the schema under it', () => {
  it('keeps answering after columns are added and a column selected changes type (no 500)', async () => {
    const db = await database();
    const a = await startServer({ database: db.url, port: 0 });
    try {
      const api = makeApi(a.url, await tokenOf(a.store));
      // Every kind of statement prepared on the instance's connections first.
      const made = await api('POST', '/properties', { address: '1 Mill Lane', postcode: 'LS1 1AA', bedrooms: 3 });
      expect(made.status).toBe(201);
      const uuid = made.body.data.uuid;
      expect((await api('GET', `/properties/${uuid}`)).status).toBe(200);
      expect(
        (await api('PUT', `/properties/${uuid}`, { address: '1 Mill Lane', postcode: 'LS1 1AA', bedrooms: 4 })).status,
      ).toBe(200);
      expect((await api('GET', '/properties?bedrooms=4')).body.meta.pagination.total).toBe(1);
      // What a later pm's migration might do, run by another instance.
      const other = new pg.Client({ connectionString: db.url });
      await other.connect();
      await other.query('ALTER TABLE properties ADD COLUMN added_later TEXT');
      await other.query('ALTER TABLE properties ALTER COLUMN bedrooms TYPE BIGINT');
      await other.end();
      for (let round = 0; round < 3; round++) {
        // A write first: its transaction meets the stale statement, and is run again whole.
        const put = await api('PUT', `/properties/${uuid}`, {
          address: '1 Mill Lane',
          postcode: 'LS1 1AA',
          bedrooms: 5 + round,
        });
        expect(put.status, put.text).toBe(200);
        const got = await api('GET', `/properties/${uuid}`);
        expect(got.status, got.text).toBe(200);
        expect(got.body.data.bedrooms).toBe(5 + round);
        const post = await api('POST', '/properties', { address: `${round} Mill Lane`, postcode: 'LS1 1AA' });
        expect(post.status, post.text).toBe(201);
        expect((await api('GET', '/properties?bedrooms=0')).body.meta.pagination.total).toBe(round + 1);
      }
    } finally {
      await a.close();
    }
  });
});

suite('PostgreSQL: several instances on one database', () => {
  let a: Running;
  let b: Running;
  let token: string;
  const clock = new Clock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const db = await database();
    // Both started at the same moment on an empty database: one migrates, the other waits.
    [a, b] = await Promise.all([
      startServer({ database: db.url, port: 0, now: clock.now, rateLimit: { limit: 5, windowMs: 60_000 } }),
      startServer({ database: db.url, port: 0, now: clock.now, rateLimit: { limit: 5, windowMs: 60_000 } }),
    ]);
    token = await tokenOf(a.store);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('both came up on the empty database, with one account and the schema made once', async () => {
    expect(
      (a as { createdAccount: boolean }).createdAccount !== (b as { createdAccount: boolean }).createdAccount,
    ).toBe(true);
    expect(await a.store.db.query('SELECT COUNT(*) AS n FROM accounts')).toEqual([{ n: 1 }]);
    expect(await a.store.db.query('SELECT version FROM pm_schema')).toEqual([{ version: PG_MIGRATIONS.length }]);
  });

  it('a write through one is read through the other at once; a delete too', async () => {
    clock.advance(60_000);
    const viaA = makeApi(a.url, token);
    const viaB = makeApi(b.url, token);
    const made = await viaA('POST', '/reminders', { title: 'written through A' });
    expect(made.status).toBe(201);
    const read = await viaB('GET', `/reminders/${made.body.data.uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.data.title).toBe('written through A');
    expect((await viaB('DELETE', `/reminders/${made.body.data.uuid}`)).status).toBe(204);
    expect((await viaA('GET', `/reminders/${made.body.data.uuid}`)).status).toBe(404);
  });

  it('a revoked token is refused by every instance at once', async () => {
    clock.advance(60_000);
    const first = await a.store.firstUser();
    const t = await b.store.createToken(first?.userId as number, 'short-lived', ALL_SCOPES);
    expect((await makeApi(a.url, t.token)('GET', '/properties')).status).toBe(200);
    expect((await makeApi(b.url, t.token)('GET', '/properties')).status).toBe(200);
    expect(await a.store.revokeToken(t.id)).toBe(true);
    expect((await makeApi(a.url, t.token)('GET', '/properties')).status).toBe(401);
    expect((await makeApi(b.url, t.token)('GET', '/properties')).status).toBe(401);
  });

  it('the rate limit is one budget per user across the instances', async () => {
    clock.advance(60_000);
    const viaA = makeApi(a.url, token);
    const viaB = makeApi(b.url, token);
    const statuses: number[] = [];
    const remaining: (string | null)[] = [];
    for (const api of [viaA, viaB, viaA, viaB, viaA, viaB, viaA]) {
      const r = await api('GET', '/properties');
      statuses.push(r.status);
      remaining.push(r.headers.get('x-ratelimit-remaining'));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0', '0']);
    const refused = await viaB('GET', '/properties');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The next window starts afresh, on both.
    clock.advance(60_000);
    expect((await viaB('GET', '/properties')).status).toBe(200);
    expect((await viaA('GET', '/properties')).headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('clashing writes at once: one 201, the others 409 from the unique constraint', async () => {
    clock.advance(60_000);
    const many = await a.store.createAccount('clashes');
    const tok = (await a.store.createToken(many.userId, 't', ALL_SCOPES)).token;
    const apis = [makeApi(a.url, tok), makeApi(b.url, tok)];
    const body = { name: 'colour', label: 'Colour', type: { code: 1 }, entity_type: { code: 2 } };
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => apis[i % 2]?.('POST', '/custom-fields', body)),
    );
    const statuses = answers.map((r) => r?.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    const clash = answers.find((r) => r?.status === 409);
    expect(clash?.body).toEqual({
      message: 'A custom field named "colour" already exists for properties.',
      errors: { name: ['The name "colour" is already taken.'] },
      request_id: clash?.headers.get('x-request-id'),
    });
  });
});

suite('PostgreSQL: fuzzy filters match as on SQLite', () => {
  it('the same records for the same filters: Unicode case, % and _, postcode spaces', async () => {
    const values = [
      'C:\\Temp Road',
      'İstanbul Road',
      'STRASSE 1',
      'Straße 2',
      'ΣΊΣΥΦΟΣ',
      '100% Lane',
      'a_b Court',
      'ab Close',
      'Ǆemal',
    ];
    const queries = [
      'i̇stanbul',
      'istanbul',
      'straße',
      'strasse',
      'σίσυφος',
      '%',
      '0%',
      '_',
      'a_b',
      'ǆ',
      'ǅemal',
      'ls14',
    ];
    const servers = [await startTestServer({ store: 'sqlite' }), await startTestServer({ store: 'postgres' })];
    try {
      const results: string[][][] = [];
      for (const s of servers) {
        const acct = await s.newAccount();
        for (const [i, address] of values.entries())
          expect(
            (await acct.api('POST', '/properties', { address, postcode: i % 2 ? 'LS1 4AB' : 'ls 14ab' })).status,
          ).toBe(201);
        const got: string[][] = [];
        for (const q of queries) {
          const key = q === 'ls14' ? 'postcode' : 'address';
          const r = await acct.api('GET', `/properties?${key}=${encodeURIComponent(q)}&per_page=100`);
          expect(r.status).toBe(200);
          got.push(r.body.data.map((p: { address: string }) => p.address));
        }
        results.push(got);
      }
      expect(results[1]).toEqual(results[0]);
      // And they are not all empty: the filters found something.
      expect(results[0]?.filter((x) => x.length > 0).length).toBeGreaterThan(6);
    } finally {
      for (const s of servers) await s.close();
    }
  });
});

suite('PostgreSQL: /health and losing the database', () => {
  let own: Cluster;
  let server: Running | undefined;
  const errors: unknown[] = [];
  beforeAll(async () => {
    own = await startCluster();
  });
  afterAll(async () => {
    await server?.close();
    own?.destroy();
  });

  it('503 with Retry-After while the database is down, no 500, then it recovers by itself', async () => {
    const db = await createTestDatabase(own);
    const s = await startServer({ database: db.url, port: 0, logError: (e) => errors.push(e) });
    server = s;
    const api = makeApi(s.url, await tokenOf(s.store));
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const before = await api('POST', '/reminders', { title: 'before' });
    expect(before.status).toBe(201);

    own.stop();
    const health = await fetch(`${s.url}/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('5');
    for (const [method, path, body] of [
      ['GET', '/reminders', undefined],
      ['POST', '/reminders', { title: 'while down' }],
      ['GET', `/reminders/${before.body.data.uuid}`, undefined],
    ] as const) {
      const r = await api(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      // The token's check fails first: nothing was asked to be written yet, and nothing is said of it.
      expect(r.body.message).toBe('The server cannot reach its database at the moment; try again shortly.');
    }

    own.start();
    let recovered = 0;
    for (let i = 0; i < 50 && recovered !== 200; i++) {
      recovered = (await fetch(`${s.url}/health`)).status;
      if (recovered !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(recovered).toBe(200);
    const list = await api('GET', '/reminders');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { title: string }) => r.title)).toEqual(['before']);
    expect((await api('POST', '/reminders', { title: 'after' })).status).toBe(201);
    expect(errors).toEqual([]);
  });

  it('stopped and started under load: only 201s and 503s, every 201 kept, nothing half written', async () => {
    const db = await createTestDatabase(own);
    const s = await startServer({ database: db.url, port: 0, logError: (e) => errors.push(e) });
    try {
      const api = makeApi(s.url, await tokenOf(s.store));
      const answers: { status: number; title: string; uuid?: string }[] = [];
      let running = true;
      let n = 0;
      const worker = async () => {
        while (running) {
          const title = `load ${++n}`;
          const r = await api('POST', '/custom-fields', {
            label: title,
            type: { code: 1 },
            entity_type: { code: 2 },
          }).catch(() => ({ status: -1, body: undefined }));
          answers.push({ status: r.status, title, uuid: r.body?.data?.uuid });
          if (r.status !== 201) await new Promise((res) => setTimeout(res, 20));
        }
      };
      const load = Promise.all([worker(), worker(), worker(), worker()]);
      await new Promise((res) => setTimeout(res, 300));
      own.stop();
      await new Promise((res) => setTimeout(res, 500));
      own.start();
      let healthy = 0;
      for (let i = 0; i < 50 && healthy !== 200; i++) {
        healthy = (await fetch(`${s.url}/health`)).status;
        if (healthy !== 200) await new Promise((res) => setTimeout(res, 100));
      }
      await new Promise((res) => setTimeout(res, 300));
      running = false;
      await load;
      expect(healthy).toBe(200);
      const statuses = new Set(answers.map((a) => a.status));
      expect([...statuses].sort()).toEqual([201, 503]);
      const made = answers.filter((a) => a.status === 201);
      const stored = new Map<string, string>();
      for (let page = 1; ; page++) {
        const r = await api('GET', `/custom-fields?per_page=100&page=${page}`);
        expect(r.status).toBe(200);
        for (const f of r.body.data) stored.set(f.uuid, f.label);
        if (page >= r.body.meta.pagination.total_pages) break;
      }
      // Every answered create is there, whole; anything else there was attempted (a commit whose
      // answer the lost connection swallowed), never a record half made.
      for (const m of made) expect(stored.get(m.uuid as string)).toBe(m.title);
      const attempted = new Set(answers.map((a) => a.title));
      for (const label of stored.values()) expect(attempted.has(label)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await s.close();
      await db.drop();
    }
  });

  it('stopped during an upload streamed into its transaction: a 503 that says nothing was written, and nothing was', async () => {
    const db = await createTestDatabase(own);
    const s = await startServer({ database: db.url, port: 0, logError: (e) => errors.push(e) });
    try {
      const token = await tokenOf(s.store);
      const api = makeApi(s.url, token);
      const property = (await api('POST', '/properties', { address: '1 High Street', postcode: 'LS1 1AA' })).body.data
        .uuid as string;
      const bytes = randomBytes(4 * 1024 * 1024);
      const url = new URL(s.url);
      const socket = connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      const got: Buffer[] = [];
      socket.on('data', (b) => got.push(b));
      socket.on('error', () => {});
      const answered = once(socket, 'end');
      socket.write(
        `POST /properties/${property}/attachments?name=lease.pdf HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/pdf\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
      );
      socket.write(bytes.subarray(0, bytes.length / 2));
      // Its COPY is under way...
      const look = new pg.Client({ connectionString: db.url });
      await look.connect();
      const copying = async () =>
        (
          await look.query(
            "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY attachment_chunks %'",
          )
        ).rows[0].n;
      await expect.poll(copying, { timeout: 10_000 }).toBe(1);
      await look.end();
      // ...when the database goes away; the rest of the file comes after.
      own.stop();
      socket.write(bytes.subarray(bytes.length / 2));
      await answered;
      const answer = Buffer.concat(got).toString('utf8');
      expect(answer.split(' ')[1]).toBe('503');
      expect(JSON.parse(answer.split('\r\n\r\n')[1] as string).message).toMatch(/Nothing was written/);
      own.start();
      await expect
        .poll(async () => (await fetch(`${s.url}/health`)).status, { timeout: 10_000, interval: 200 })
        .toBe(200);
      expect((await api('GET', '/attachments')).body.data).toEqual([]);
      expect((await s.store.db.query('SELECT COUNT(*)::int AS n FROM attachment_chunks'))[0]?.n).toBe(0);
      // And the next upload is kept.
      const again = await fetch(`${s.url}/properties/${property}/attachments?name=lease.pdf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
        body: bytes,
      });
      expect(again.status).toBe(201);
      expect(errors).toEqual([]);
    } finally {
      await s.close();
      await db.drop();
    }
  });
});
