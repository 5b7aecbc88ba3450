/**
 * Ctrl-C in the middle of a bulk create: pm stops sending, waits for the requests in flight,
 * writes the unsent records to --failed and exits 130; a second run with that file completes
 * the job with nothing created twice and nothing missing. The same over HTTP and on the embedded
 * default (requests answered in-process must not keep Ctrl-C waiting), and for a list --all.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pm');
const TOTAL = 1500;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Where the records go: an account of the test server, or the embedded default of an empty HOME. */
interface Target {
  readonly env: Record<string, string>;
  titles(): string[];
}

async function overHttp(): Promise<Target> {
  const acct = await server.newAccount();
  return {
    env: { PATH: process.env.PATH ?? '', HOME: tempHome(), PM_BASE_URL: server.url, PM_TOKEN: acct.token },
    titles: () =>
      server.sqlite.db
        .prepare('SELECT title FROM reminders WHERE account_id = ?')
        .all(acct.accountId)
        .map((r) => (r as { title: string }).title),
  };
}

async function embedded(): Promise<Target> {
  const home = tempHome();
  return {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    titles: () => {
      const db = new Database(join(home, '.local', 'share', 'pm', 'pm.db'), { readonly: true });
      try {
        return db
          .prepare('SELECT title FROM reminders')
          .all()
          .map((r) => (r as { title: string }).title);
      } finally {
        db.close();
      }
    },
  };
}

it.each([
  ['over HTTP', overHttp],
  ['on the embedded default', embedded],
])(
  '%s: accounts for every record after SIGINT, and the --failed file finishes the job',
  async (_name, target) => {
    const { env, titles } = await target();
    const dir = mkdtempSync(join(tmpdir(), 'pm-sigint-'));
    const input = join(dir, 'reminders.ndjson');
    const failed = join(dir, 'failed.ndjson');
    writeFileSync(input, Array.from({ length: TOTAL }, (_, i) => `${JSON.stringify({ title: `r${i}` })}\n`).join(''));

    const child = spawn(
      process.execPath,
      [BIN, 'reminders', 'create', '--from-file', input, '--failed', failed, '--concurrency', '2', '-q'],
      { env },
    );
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      if (!signalled && stdout.split('\n').length > 100) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(130);
    const created = stdout.split('\n').filter((l) => /^[0-9a-f-]{36}$/.test(l));
    expect(created.length).toBeGreaterThan(100);
    expect(created.length).toBeLessThan(TOTAL);
    expect(stderr).toMatch(new RegExp(`created ${created.length}, failed 0, not sent ${TOTAL - created.length}`));

    const unsent = readFileSync(failed, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { title: string; _error: string });
    expect(unsent).toHaveLength(TOTAL - created.length);
    expect(unsent[0]?._error).toContain('interrupted');

    const again = await new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [BIN, 'reminders', 'create', '--from-file', failed, '-q'], { env });
      c.stdout.resume();
      c.on('close', resolve);
    });
    expect(again).toBe(0);
    const all = titles();
    expect(all).toHaveLength(TOTAL);
    expect(new Set(all).size).toBe(TOTAL);
  },
  60_000,
);

it('on the embedded default, Ctrl-C stops a list --all: exit 130, and not every record printed', async () => {
  const { env } = await embedded();
  const dir = mkdtempSync(join(tmpdir(), 'pm-sigint-'));
  const input = join(dir, 'reminders.ndjson');
  writeFileSync(input, Array.from({ length: 600 }, (_, i) => `${JSON.stringify({ title: `r${i}` })}\n`).join(''));
  const made = spawn(process.execPath, [BIN, 'reminders', 'create', '--from-file', input, '-q'], { env });
  made.stdout.resume();
  expect(await new Promise((resolve) => made.on('close', resolve))).toBe(0);

  const child = spawn(process.execPath, [BIN, 'reminders', 'list', '--all', '--per-page', '1', '-q'], { env });
  let stdout = '';
  let signalled = false;
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!signalled && stdout.split('\n').length > 50) {
      signalled = true;
      child.kill('SIGINT');
    }
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(code).toBe(130);
  expect(stderr).toContain('interrupted');
  expect(stdout.trim().split('\n').length).toBeLessThan(600);
}, 60_000);
