/**
 * Lists answered by reader threads (pm serve's default): the same answers as the server's own
 * connection gives, a write visible to the next list at once, and errors as the API answers them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/core/query.js';
import { properties } from '../../src/resources/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { ReaderPool } from '../../src/server/sqlite/readers.js';
import { create, propertyBody } from './fixtures.js';
import { type Api, makeApi } from '../helpers/server.js';

let dir: string;
let threaded: RunningServer;
let plain: RunningServer;
let viaThreads: Api;
let direct: Api;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pm-readers-'));
  const dataFile = join(dir, 'pm.db');
  // Every list to a thread, however small the table (pm serve sends only those of large ones).
  threaded = await startServer({ dataFile, port: 0, readers: 2, threadedFrom: 0 });
  const token = threaded.createdToken as string;
  plain = await startServer({ dataFile, port: 0, readers: 0 });
  viaThreads = makeApi(threaded.url, token);
  direct = makeApi(plain.url, token);
  for (let i = 0; i < 60; i++)
    await create(viaThreads, '/properties', propertyBody({ city: ['Leeds', 'York', 'Hull'][i % 3], bedrooms: i % 5 }));
});
afterAll(async () => {
  await threaded.close();
  await plain.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reader threads', () => {
  it('answer every list as the server’s own connection does', async () => {
    for (const q of [
      '',
      '?city=leeds',
      '?city=ee&bedrooms[]=1&bedrooms[]=3',
      '?per_page=7&page=4',
      '?postcode=ls1',
      '?page=99',
    ]) {
      const a = await viaThreads('GET', `/properties${q}`);
      const b = await direct('GET', `/properties${q}`);
      expect(a.status).toBe(200);
      expect(a.body.data).toEqual(b.body.data);
      expect(a.body.meta.pagination.total).toBe(b.body.meta.pagination.total);
    }
  });

  it('see a write at once, from any connection', async () => {
    const made = await create(direct, '/properties', propertyBody({ city: 'Ripon' }));
    const seen = await viaThreads('GET', '/properties?city=ripon');
    expect(seen.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([made.uuid]);
    await direct('DELETE', `/properties/${made.uuid}`);
    expect((await viaThreads('GET', '/properties?city=ripon')).body.data).toEqual([]);
  });

  it('many lists at once, each answered, in any order of completion', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => viaThreads('GET', `/properties?bedrooms=${i % 5}&per_page=100`)),
    );
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(200);
      expect(a.body.data.every((x: { bedrooms: number }) => x.bedrooms === i % 5)).toBe(true);
      expect(a.body.meta.pagination.total).toBe(12);
    }
  });
});

describe('a reader thread that dies', () => {
  it('fails only the lists it held, and is started again for the next ones', async () => {
    const pool = new ReaderPool(join(dir, 'pm.db'), 1);
    try {
      const db = new Database(join(dir, 'pm.db'), { readonly: true });
      const { accountId } = db.prepare('SELECT account_id AS accountId FROM properties LIMIT 1').get() as {
        accountId: number;
      };
      db.close();
      const query = parseListQuery(properties, new URLSearchParams('city=leeds'), Date.now());
      const first = await pool.list(accountId, properties, query);
      expect(first.total).toBe(20);
      const threads = (pool as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads;
      // A list in flight when its thread dies settles (an error, or its answer if it came first).
      const inFlight = pool.list(accountId, properties, query).then(
        (a) => a.total,
        (e: Error) => e.message,
      );
      await threads[0]?.worker.terminate();
      expect([20, 'a reader thread stopped (exit code 1)']).toContain(await inFlight);
      expect(pool.size).toBe(1);
      expect((await pool.list(accountId, properties, query)).total).toBe(20);
    } finally {
      await pool.close();
    }
  });
});

describe("a file's transaction", () => {
  it('reaches the data file from the WAL with no write after it (checkpointed by a reader thread), and reads back whole', async () => {
    const own = mkdtempSync(join(tmpdir(), 'pm-readers-file-'));
    const dataFile = join(own, 'pm.db');
    const server = await startServer({ dataFile, port: 0, readers: 1 });
    try {
      const api = makeApi(server.url, server.createdToken as string);
      const property = (await create(api, '/properties', propertyBody({}))).uuid as string;
      const before = statSync(dataFile).size;
      const bytes = randomBytes(3 * 1024 * 1024);
      const res = await fetch(`${server.url}/properties/${property}/attachments?name=plan.bin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.createdToken}`, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(res.status).toBe(201);
      // Its pages reach the data file (from the WAL) with no other write after it.
      await expect.poll(() => statSync(dataFile).size - before, { timeout: 10_000 }).toBeGreaterThan(bytes.length);
      const uuid = ((await res.json()) as { data: { uuid: string } }).data.uuid;
      const got = await fetch(`${server.url}/attachments/${uuid}/download`, {
        headers: { authorization: `Bearer ${server.createdToken}` },
      });
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    } finally {
      await server.close();
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('a reader thread', () => {
  it('runs with a young generation of a few MB, so that what its lists leave is collected soon, not kept', async () => {
    const pool = new ReaderPool(join(dir, 'pm.db'), 2);
    try {
      const threads = (
        pool as unknown as { threads: { worker: { resourceLimits?: { maxYoungGenerationSizeMb?: number } } }[] }
      ).threads;
      expect(threads).toHaveLength(2);
      // As each thread itself has it (V8's default grows to 48 MB).
      for (const t of threads) expect(t.worker.resourceLimits?.maxYoungGenerationSizeMb).toBeLessThanOrEqual(8);
    } finally {
      await pool.close();
    }
  });
});
