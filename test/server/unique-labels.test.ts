/**
 * A label names one record (docs/api.md, "Statuses, contact types and competencies"): a status
 * per account and type, a contact type and a competency per account, ASCII case aside, as a label
 * filter and a body naming a record compare them. A duplicate is a 422 naming `label`, on create
 * and on update, and two creates at once cannot both pass; a database that already holds
 * duplicates is upgraded without losing a record or a reference. Run on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { PG_MIGRATIONS } from '../../src/server/postgres/schema.js';
import { migrations } from '../../src/server/schema.js';
import { makeApi, ON_POSTGRES, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const taken = (label: string) => expect.stringContaining(`with label "${label}" already exists`);

describe('labels are unique', () => {
  it('a second status of the same type with the same label, case aside, is a 422 naming label', async () => {
    const a = await server.newAccount();
    expect((await a.api('POST', '/statuses', { label: 'For Let', type: { code: 2 } })).status).toBe(201);
    for (const label of ['For Let', 'for let', 'FOR LET']) {
      const res = await a.api('POST', '/statuses', { label, type: { code: 2 } });
      expect(res.status, label).toBe(422);
      expect(res.body.errors).toEqual({ label: [taken(label)] });
      expect(res.body.errors.label[0]).toContain('among Property statuses');
    }
    // Another type, another account: no clash.
    expect((await a.api('POST', '/statuses', { label: 'for let', type: { code: 1 } })).status).toBe(201);
    const b = await server.newAccount();
    expect((await b.api('POST', '/statuses', { label: 'For Let', type: { code: 2 } })).status).toBe(201);
    expect((await a.api('GET', '/statuses?label=let')).body.meta.pagination.total).toBe(2);
  });

  it('contact types and competencies too', async () => {
    const a = await server.newAccount();
    for (const path of ['/types', '/competencies']) {
      expect((await a.api('POST', path, { label: 'Roofing' })).status).toBe(201);
      const res = await a.api('POST', path, { label: 'roofing' });
      expect(res.status, path).toBe(422);
      expect(res.body.errors).toEqual({ label: [taken('roofing')] });
    }
  });

  it('an update to another record’s label is refused; to its own in another case is not', async () => {
    const a = await server.newAccount();
    const tenant = (await a.api('POST', '/types', { label: 'Tenant' })).body.data.uuid;
    const landlord = (await a.api('POST', '/types', { label: 'Landlord' })).body.data.uuid;
    const res = await a.api('PUT', `/types/${landlord}`, { label: 'TENANT' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ label: [taken('TENANT')] });
    expect((await a.api('GET', `/types/${landlord}`)).body.data.label).toBe('Landlord');
    const own = await a.api('PUT', `/types/${tenant}`, { label: 'TENANT' });
    expect(own.status).toBe(200);
    expect(own.body.data.label).toBe('TENANT');
    // A status moved to a type that has its label already.
    await a.api('POST', '/statuses', { label: 'Active', type: { code: 1 } });
    const other = (await a.api('POST', '/statuses', { label: 'active', type: { code: 2 } })).body.data.uuid;
    const moved = await a.api('PUT', `/statuses/${other}`, { type: { code: 1 } });
    expect(moved.status).toBe(422);
    expect(Object.keys(moved.body.errors)).toEqual(['label']);
  });

  it('of many creates of one label at once, one is made and the others are 422s', async () => {
    const a = await server.newAccount();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => a.api('POST', '/competencies', { label: i % 2 ? 'Gas Safe' : 'gas safe' })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of answers.filter((x) => x.status === 422)) expect(Object.keys(r.body.errors)).toEqual(['label']);
    expect((await a.api('GET', '/competencies')).body.meta.pagination.total).toBe(1);
  });
});

describe('a database that holds duplicate labels, upgraded', () => {
  /** A statement that writes, on either store. */
  const write = async (sql: string, params: unknown[] = []) => {
    if (ON_POSTGRES) await server.sql(sql, params);
    else server.sqlite.db.prepare(sql).run(...params);
  };
  /**
   * The columns the migrations after the one that made labels unique added (a reminder's property,
   * contact, done and repeat; an attachment's expiry), and SQLite's update blocks (PostgreSQL's
   * migration of them holds nothing): undone with it, so that the upgrade runs them again. A
   * migration added after these must be undone here too (versionBefore fails).
   */
  const LATER: Record<string, string[]> = {
    reminders: ['property_id', 'contact_id', 'done_at', 'repeat', 'last_done_at'],
    attachments: ['expires_on'],
  };
  const LATER_MIGRATIONS = 2;
  /** The statements of the migration that made labels unique, and of those after it, undone: the database as it was before. */
  const undo = async () => {
    for (const [t, columns] of Object.entries(LATER)) {
      if (!ON_POSTGRES)
        for (const c of columns) {
          const indexes = server.sqlite.db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE ?")
            .pluck()
            .all(t, `%${c}%`) as string[];
          for (const i of indexes) await write(`DROP INDEX ${i}`);
        }
      for (const c of columns) await write(`ALTER TABLE ${t} DROP COLUMN ${c}`);
    }
    if (!ON_POSTGRES) {
      const triggers = server.sqlite.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%update_blocks%'")
        .pluck()
        .all() as string[];
      for (const name of triggers) await write(`DROP TRIGGER ${name}`);
      await write('DROP TABLE update_blocks');
      // The order indexes as they were, without the update time beside.
      const orders = server.sqlite.db
        .prepare(
          "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_order' ESCAPE '\\' AND sql LIKE '%updated_at%'",
        )
        .all() as { name: string; tbl_name: string }[];
      for (const { name, tbl_name } of orders) {
        await write(`DROP INDEX ${name}`);
        await write(`CREATE INDEX ${name} ON ${tbl_name} (account_id, created_at, id)`);
      }
    }
    for (const t of ['statuses', 'types', 'competencies']) await write(`DROP INDEX ${t}_labelled`);
    if (ON_POSTGRES) await write('UPDATE pm_schema SET version = ?', [versionBefore(PG_MIGRATIONS)]);
    else server.sqlite.db.pragma(`user_version = ${versionBefore(migrations())}`);
  };
  /** The version before the migration that made labels unique (those after it are undone too). */
  const versionBefore = (all: readonly unknown[]) => {
    const at = all.findIndex((m) => Array.isArray(m) && m.some((x) => String(x).includes('_labelled')));
    expect(at).toBe(all.length - 1 - LATER_MIGRATIONS);
    return at;
  };

  it('keeps every record and reference; the oldest keeps the label, which names it again', async () => {
    const a = await server.newAccount();
    const make = async (path: string, body: Record<string, unknown>) => {
      const res = await a.api('POST', path, body);
      expect(res.status, res.text).toBe(201);
      return res.body.data.uuid as string;
    };
    const letOld = await make('/statuses', { label: 'For Let', type: { code: 2 } });
    const letNew = await make('/statuses', { label: 'Let twice', type: { code: 2 } });
    const contactStatus = await make('/statuses', { label: 'Let thrice', type: { code: 1 } });
    const plumbOld = await make('/competencies', { label: 'Plumbing' });
    const plumbNew = await make('/competencies', { label: 'Plumbing again' });
    const p1 = await make('/properties', { address: '1 Old St', postcode: 'LS1 1AA', status: { uuid: letOld } });
    const p2 = await make('/properties', { address: '2 Old St', postcode: 'LS1 1AA', status: { uuid: letNew } });
    const c = await make('/contacts', {
      name: 'Ann',
      email: 'ann@example.com',
      status: { uuid: contactStatus },
      competencies: [{ uuid: plumbOld }, { uuid: plumbNew }],
    });
    await undo();
    // Duplicates, as an older pm let them be made (a status of another type is no duplicate).
    const rename = async (t: string, uuid: string, label: string) =>
      write(`UPDATE ${t} SET label = ?, label_fold = ? WHERE uuid = ?`, [label, label.toLowerCase(), uuid]);
    await rename('statuses', letNew, 'for let');
    await rename('statuses', contactStatus, 'For Let');
    await rename('competencies', plumbNew, 'PLUMBING');
    const before = await a.api('POST', '/properties', { address: 'x', postcode: 'y', status: { label: 'For Let' } });
    expect(before.body.errors?.status?.[0]).toMatch(/^More than one status has label/);

    // Another instance opens it, and upgrades it.
    const again = ON_POSTGRES
      ? await startServer({ database: server.postgres.database.url, port: 0 })
      : await startServer({ dataFile: server.dataFile, port: 0 });
    try {
      const api = makeApi(again.url, a.token);
      const label = async (path: string) => (await api('GET', path)).body.data.label;
      expect(await label(`/statuses/${letOld}`)).toBe('For Let');
      expect(await label(`/statuses/${letNew}`)).toBe(`for let (${letNew})`);
      expect(await label(`/statuses/${contactStatus}`)).toBe('For Let');
      expect(await label(`/competencies/${plumbOld}`)).toBe('Plumbing');
      expect(await label(`/competencies/${plumbNew}`)).toBe(`PLUMBING (${plumbNew})`);
      // Every reference kept.
      const status = async (p: string) =>
        (await api('GET', `/properties/${p}?embed=status`)).body.data.status.data.uuid;
      expect([await status(p1), await status(p2)]).toEqual([letOld, letNew]);
      const held = (await api('GET', `/contacts/${c}?embed=competencies`)).body.data.competencies.data;
      expect(held.map((x: { uuid: string }) => x.uuid).sort()).toEqual([plumbOld, plumbNew].sort());
      // The label names one record again: as a filter and in a body.
      const byLabel = await api('GET', '/properties?status[label]=for+let');
      expect(byLabel.status, byLabel.text).toBe(200);
      expect(byLabel.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([p1]);
      const named = await api('POST', '/properties', {
        address: '3 Old St',
        postcode: 'LS1 1AA',
        status: { label: 'FOR LET' },
      });
      expect(named.status, named.text).toBe(201);
      expect((await api('GET', '/competencies?label=plumbing')).body.meta.pagination.total).toBe(2);
      expect((await api('GET', `/contacts?competencies[label]=plumbing`)).body.data).toHaveLength(1);
      // A renamed one is found by its new words, and the labels stay unique.
      expect((await api('GET', `/statuses?label=${letNew.slice(0, 8)}`)).body.data[0]?.uuid).toBe(letNew);
      expect((await api('POST', '/competencies', { label: 'plumbing' })).status).toBe(422);
    } finally {
      await again.close();
    }
  });
});
