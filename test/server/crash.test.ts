/**
 * Crash safety: `pm serve` killed with SIGKILL in the middle of a bulk import. The data file must
 * open cleanly afterwards (integrity_check ok, no foreign key broken, every multi-row write whole
 * or absent), every record the client was told was created must be there, none twice, and the
 * client's --failed file and the server's records together must account for every input record.
 *
 * The server runs in a child process (so that it can be killed for real), built from src/server
 * into a temporary directory as in concurrency.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, buildServer } from '../helpers/build-server.js';
import { runPm } from '../helpers/cli.js';

const _ROOT = resolve(import.meta.dirname, '../..');
let built: BuiltServer;
let serverModule: string;
let work: string;

beforeAll(() => {
  built = buildServer('pm-crash-build-');
  serverModule = built.module;
  work = mkdtempSync(join(tmpdir(), 'pm-crash-'));
  writeFileSync(
    join(work, 'serve.mjs'),
    `
const [moduleUrl, dataFile] = process.argv.slice(2);
const { startServer, readLocalToken } = await import(moduleUrl);
const server = await startServer({ dataFile, port: 0 });
process.stdout.write(JSON.stringify({ url: server.url, token: server.createdToken ?? readLocalToken(dataFile) }) + '\\n');
`,
  );
}, 60_000);
afterAll(() => {
  built.remove();
  rmSync(work, { recursive: true, force: true });
});

interface Served {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly token: string;
}

/** Starts the server on `dataFile` in a child process. */
async function serve(dataFile: string): Promise<Served> {
  const proc = spawn(process.execPath, [join(work, 'serve.mjs'), serverModule, dataFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const line = await new Promise<string>((res, rej) => {
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) res(out.split('\n')[0] as string);
    });
    proc.on('exit', (code) => rej(new Error(`the server exited with ${code}: ${err}`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { proc, url, token };
}

function kill9(s: Served): Promise<void> {
  return new Promise((res) => {
    s.proc.once('exit', () => res());
    s.proc.kill('SIGKILL');
  });
}

/** Waits until `count()` reaches `n` (polling the data file read-only, as a second process would). */
async function whenCount(dataFile: string, sql: string, n: number, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    let count = 0;
    const db = new Database(dataFile, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      count = (db.prepare(sql).get() as { n: number }).n;
    } catch {
      count = 0;
    } finally {
      db.close();
    }
    if (count >= n) return count;
    if (Date.now() - started > timeoutMs) throw new Error(`only ${count} of ${n} rows after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Opens the data file as after a crash, and checks it through and through. */
function checkDatabase(dataFile: string): Database.Database {
  const db = new Database(dataFile);
  db.pragma('foreign_keys = ON');
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);
  return db;
}

describe('kill -9 in the middle of `pm reminders create --from-file`', () => {
  it('the data file opens cleanly; created + failed account for every input record; none twice', async () => {
    const dir = mkdtempSync(join(work, 'bulk-'));
    const dataFile = join(dir, 'pm.db');
    const input = join(dir, 'in.ndjson');
    const failed = join(dir, 'failed.ndjson');
    const titles = Array.from({ length: 400 }, (_, i) => `crash ${String(i).padStart(3, '0')}`);
    writeFileSync(input, titles.map((title) => JSON.stringify({ title, description: 'd'.repeat(2000) })).join('\n'));
    const first = await serve(dataFile);

    const run = runPm(
      ['--retries', '2', 'reminders', 'create', '--from-file', input, '--concurrency', '8', '--failed', failed, '-q'],
      { env: { PM_BASE_URL: first.url, PM_TOKEN: first.token, PM_RETRY_BASE_MS: '5' } },
    );
    await whenCount(dataFile, 'SELECT COUNT(*) AS n FROM reminders', 120);
    await kill9(first);
    const r = await run;

    // Every failure is the server gone (network): the run exits so (5); mixed failures would be 1.
    expect([1, 5]).toContain(r.code);
    expect(r.stderr).toMatch(/^created \d+, failed \d+ \(written to .*failed\.ndjson\)\n/);
    const failedTitles = readFileSync(failed, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { title: string; _error: string });
    const printed = r.stdout.split('\n').slice(0, titles.length);

    const db = checkDatabase(dataFile);
    const rows = db.prepare('SELECT uuid, title FROM reminders').all() as { uuid: string; title: string }[];
    db.close();
    const onServer = rows.map((x) => x.title);
    // None twice.
    expect(new Set(onServer).size).toBe(onServer.length);
    // Every uuid pm reported created is there.
    const uuids = new Set(rows.map((x) => x.uuid));
    const reported = printed.filter((u) => u !== '');
    expect(reported.length).toBeGreaterThanOrEqual(100);
    for (const u of reported) expect(uuids.has(u), u).toBe(true);
    // Every input record is on the server or in the failed file (both, for one whose answer was
    // lost with the server: at most the requests in flight).
    const failedSet = new Set(failedTitles.map((f) => f.title));
    for (const t of titles) expect(onServer.includes(t) || failedSet.has(t), t).toBe(true);
    const both = onServer.filter((t) => failedSet.has(t));
    expect(both.length).toBeLessThanOrEqual(8);
    for (const f of failedTitles) expect(f._error).toMatch(/could not reach|no answer from/);

    // The server starts again on the same file and serves exactly those records.
    const again = await serve(dataFile);
    try {
      const res = await fetch(`${again.url}/reminders?per_page=1`, {
        headers: { authorization: `Bearer ${again.token}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { meta: { pagination: { total: number } } }).meta.pagination.total).toBe(
        rows.length,
      );
    } finally {
      await kill9(again);
    }
  }, 60_000);
});

describe('kill -9 three times during concurrent writes of related records', () => {
  it('every property has all of its custom values or none exists; notes never outlive their parent', async () => {
    const dir = mkdtempSync(join(work, 'related-'));
    mkdirSync(dir, { recursive: true });
    const dataFile = join(dir, 'pm.db');
    /** What the server answered 201 for; `deleting` once a DELETE of it was sent (its outcome may be lost). */
    const acknowledged: { property: string; notes: string[]; deleting?: boolean }[] = [];
    let field = false;

    for (let round = 0; round < 3; round++) {
      const s = await serve(dataFile);
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${s.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (await res.json().catch(() => undefined)) as { data: { uuid: string } } };
      };
      if (!field) {
        for (const label of ['Colour', 'Size'])
          expect(
            (await api('POST', '/custom-fields', { label, type: { code: 1 }, entity_type: { code: 2 } })).status,
          ).toBe(201);
        field = true;
      }
      let stop = false;
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const p = await api('POST', '/properties', {
              address: `${round}-${w}-${i}`,
              postcode: 'LS1 1AA',
              custom_fields: [
                { name: 'colour', value: 'red' },
                { name: 'size', value: 'large' },
              ],
            });
            if (p.status !== 201) throw new Error(`status ${p.status}`);
            const entry: (typeof acknowledged)[number] = { property: p.body.data.uuid, notes: [] };
            acknowledged.push(entry);
            for (let n = 0; n < 2; n++) {
              const note = await api('POST', `/properties/${entry.property}/notes`, { content: `n${n}` });
              if (note.status !== 201) throw new Error(`status ${note.status}`);
              entry.notes.push(note.body.data.uuid);
            }
            // Deleting some cascades to their notes and values in one transaction.
            if (i % 4 === 3) {
              entry.deleting = true;
              if ((await api('DELETE', `/properties/${entry.property}`)).status !== 204) throw new Error('delete');
              acknowledged.splice(acknowledged.indexOf(entry), 1);
            }
          } catch {
            return; // the server is gone
          }
        }
      };
      const workers = Array.from({ length: 6 }, (_, w) => worker(w));
      await whenCount(dataFile, 'SELECT COUNT(*) AS n FROM notes', 40 * (round + 1));
      await kill9(s);
      stop = true;
      await Promise.all(workers);

      const db = checkDatabase(dataFile);
      const props = db.prepare('SELECT id, uuid FROM properties').all() as { id: number; uuid: string }[];
      const values = db.prepare('SELECT property_id, COUNT(*) AS n FROM custom_values GROUP BY property_id').all() as {
        property_id: number;
        n: number;
      }[];
      const byProperty = new Map(values.map((v) => [v.property_id, v.n]));
      for (const p of props) expect(byProperty.get(p.id), p.uuid).toBe(2);
      expect(values.length).toBe(props.length);
      const uuids = new Set(props.map((p) => p.uuid));
      const noteUuids = new Set((db.prepare('SELECT uuid FROM notes').all() as { uuid: string }[]).map((n) => n.uuid));
      db.close();
      for (const a of acknowledged.filter((x) => !x.deleting)) {
        expect(uuids.has(a.property), a.property).toBe(true);
        for (const n of a.notes) expect(noteUuids.has(n), n).toBe(true);
      }
    }
  }, 90_000);
});
