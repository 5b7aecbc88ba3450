/**
 * Ctrl-C in the middle of a long list (--all): what has arrived is written out whole before pm
 * exits 130: records as they came, a sorted list sorted, a JSON array closed, and a line saying
 * how far it got. The built pm against a server whose second page never comes.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, pmAgainst } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let slow: FaultyServer;
let acct: Account;

beforeAll(async () => {
  server = await startTestServer();
  slow = await startFaultyServer({ upstream: server.url });
  acct = await server.newAccount();
  for (let i = 0; i < 12; i++)
    await acct.api('POST', '/reminders', { title: `reminder ${String(i).padStart(2, '0')}` });
});
afterAll(async () => {
  await slow.close();
  await server.close();
});

/** Runs pm on a list whose first page comes and second never does; Ctrl-C once the second is asked for. */
async function interrupted(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  slow.reset();
  slow.script('GET', { kind: 'forward' }, { kind: 'stall' });
  const { env } = pmAgainst(slow.url, acct.token);
  const child = spawn(process.execPath, [BIN, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const asked = setInterval(() => {
    if (slow.count('GET') >= 2) {
      clearInterval(asked);
      child.kill('SIGINT');
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearInterval(asked);
  return { code, stdout, stderr };
}

it('the records of the pages that came, then exit 130 saying how far it got', async () => {
  const r = await interrupted(['reminders', 'list', '--all', '--per-page', '5', '--fields', 'title']);
  expect(r.code).toBe(130);
  expect(r.stdout).toBe(`${[0, 1, 2, 3, 4].map((i) => `reminder 0${i}`).join('\n')}\n`);
  expect(r.stderr).toBe('error: interrupted: 5 of 12 reminders listed.\n');
});

it('--json: the array of what came, closed, so that it is still JSON', async () => {
  const r = await interrupted(['reminders', 'list', '--all', '--per-page', '5', '--json', 'title']);
  expect(r.code).toBe(130);
  expect(JSON.parse(r.stdout)).toEqual([0, 1, 2, 3, 4].map((i) => ({ title: `reminder 0${i}` })));
});

it('--sort: what came, sorted (it was held for the sort)', async () => {
  const r = await interrupted([
    'reminders',
    'list',
    '--all',
    '--per-page',
    '5',
    '--sort',
    'title:desc',
    '-o',
    'ndjson',
  ]);
  expect(r.code).toBe(130);
  expect(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).title),
  ).toEqual([4, 3, 2, 1, 0].map((i) => `reminder 0${i}`));
});
