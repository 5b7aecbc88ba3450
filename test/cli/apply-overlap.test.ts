/**
 * Two `pm reminders apply --from-file reminders.csv --key title` started together (two CI runs
 * that overlap) make each reminder once: each record is created under an idempotency key derived
 * from it, which the server keeps in its database. The built pm against `pm serve` processes: on
 * a data file, and (in the postgres project) two instances sharing one PostgreSQL database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, listeningUrl, pmBin, runPm, tempHome } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { ON_POSTGRES } from '../helpers/server.js';

let dir: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pm-apply-overlap-'));
});
afterAll(async () => {
  for (const c of children) {
    const closed = new Promise((r) => c.on('close', r));
    c.kill('SIGTERM');
    await closed;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** `pm serve --port 0` with these store flags, once it listens: its URL. */
async function serve(store: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...store], {
    env: { PATH: process.env.PATH ?? '', HOME: tempHome() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return listeningUrl(child);
}

/** A token for the store's first account. */
async function token(store: readonly string[]): Promise<string> {
  const made = await runPm(['serve', 'tokens', 'create', '--name', 'ci', ...store]);
  expect(made.code, made.stderr).toBe(0);
  return made.stdout.trim();
}

const TITLES = Array.from({ length: 12 }, (_, i) => `Gas safety check, flat ${i + 1}`);

/** Runs apply from each URL at once, and says what the server then holds. */
async function applyTogether(urls: readonly string[], tok: string) {
  const csv = join(dir, `reminders-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(csv, `title,due_at\n${TITLES.map((t) => `"${t}",2027-01-01`).join('\n')}\n`);
  const envOf = (url: string) => ({ HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: url, PM_TOKEN: tok });
  const runs = await Promise.all(
    urls.map((url) => pmBin(['reminders', 'apply', '--from-file', csv, '--key', 'title'], envOf(url))),
  );
  const listed = await pmBin(['reminders', 'list', '--all', '--json', 'title'], envOf(urls[0] as string));
  const titles = (JSON.parse(listed.stdout) as { title: string }[]).map((x) => x.title);
  return { runs, titles };
}

describe.skipIf(ON_POSTGRES)('two apply runs at once, against pm serve on a data file', () => {
  it('create each reminder once; both runs succeed', async () => {
    const store = ['--data', join(dir, 'team.db')];
    const tok = await token(store);
    const url = await serve(store);
    const { runs, titles } = await applyTogether([url, url], tok);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(titles.sort()).toEqual([...TITLES].sort());
    // A third run finds every one of them.
    const { runs: after, titles: again } = await applyTogether([url], tok);
    expect(after[0]?.stderr).toContain(`unchanged ${TITLES.length}`);
    expect(again).toHaveLength(TITLES.length);
  });
});

describe.runIf(ON_POSTGRES)('two apply runs at once, against two pm serve instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(undefined, inject('pmPostgresAdminUrl') || undefined);
  });
  afterAll(() => db?.drop());

  it('create each reminder once; both runs succeed', async () => {
    const store = ['--database', db.url];
    const tok = await token(store);
    const [one, two] = await Promise.all([serve(store), serve(store)]);
    const { runs, titles } = await applyTogether([one, two], tok);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(titles.sort()).toEqual([...TITLES].sort());
  });
});
