/**
 * What an attacker tried against pm, and what must hold: each test reproduces an attack (see
 * docs/security.md).
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmBin, runPm, tempHome, pmAgainstServer } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let front: FaultyServer;
let acct: Account;

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  front = await startFaultyServer({ upstream: server.url });
});
afterAll(async () => {
  await front.close();
  await server.close();
});

const pm = pmAgainstServer(() => ({ url: front.url, token: acct.token }), { env: { PM_RETRY_BASE_MS: '10' } });

describe('a redirect answering a request', () => {
  it('is an error naming the status and the Location, never followed, for a write', async () => {
    const created = await acct.api('POST', '/reminders', { title: 'keep me' });
    const uuid = created.body.data.uuid as string;
    const elsewhere = 'http://127.0.0.1:9/steal';
    front.script('DELETE', { kind: 'respond', status: 307, headers: { location: elsewhere } });
    const del = await pm(['reminders', 'delete', uuid, '--yes']);
    expect(del.code).toBe(1);
    expect(del.stderr).toContain('307');
    expect(del.stderr).toContain(elsewhere);
    expect(del.stderr).not.toMatch(/Deleted reminder/);
    expect((await acct.api('GET', `/reminders/${uuid}`)).status).toBe(200);

    front.script('POST', { kind: 'respond', status: 302, headers: { location: '/reminders/elsewhere' } });
    const before = front.count('POST');
    const create = await pm(['reminders', 'create', '--title', 'not created', '--json']);
    expect(create.code).toBe(1);
    expect(create.stdout).toBe('');
    expect(create.stderr).toMatch(/302.*\/reminders\/elsewhere/);
    expect(front.count('POST')).toBe(before + 1);
  });

  it('is an error for a read too', async () => {
    front.script('GET', { kind: 'respond', status: 301, headers: { location: 'https://example.com/' } });
    const list = await pm(['reminders', 'list']);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/301, a redirect to https:\/\/example\.com\//);
  });
});

describe('CSV written for spreadsheets', () => {
  const direct = (args: string[]) => runPm(args, { env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token } });

  it('guards cells a spreadsheet would run as formulas; --csv-exact and JSON keep them exact', async () => {
    const titles = ['=HYPERLINK("http://evil","x")', '+cmd|calc', '-2+3', '@SUM(A1)', '\tTab', 'plain', '-3'];
    for (const title of titles) await acct.api('POST', '/reminders', { title, description: title });
    const guarded = await direct(['reminders', 'list', '--all', '-o', 'csv', '--fields', 'title']);
    expect(guarded.code).toBe(0);
    const lines = guarded.stdout.trim().split('\n');
    expect(lines).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(lines).toContain("'+cmd|calc");
    expect(lines).toContain("'-2+3");
    expect(lines).toContain("'@SUM(A1)");
    expect(lines).toContain("'\tTab");
    expect(lines).toContain('plain');
    expect(lines).toContain('-3');
    const exact = await direct(['reminders', 'list', '--all', '-o', 'csv', '--fields', 'title', '--csv-exact']);
    expect(exact.stdout.trim().split('\n')).toContain('+cmd|calc');
    const json = await direct(['reminders', 'list', '--all', '--json', 'title']);
    expect(JSON.parse(json.stdout).map((r: { title: string }) => r.title)).toEqual(expect.arrayContaining(titles));
    expect((await direct(['reminders', 'list', '--csv-exact'])).code).toBe(2);
  });
});

describe('files the CLI writes', () => {
  const direct = (args: string[]) => runPm(args, { env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token } });

  it('are never written through a link planted where they go, and are the owner’s alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-planted-'));
    try {
      const exp = join(dir, 'export');
      expect((await direct(['export', '--dir', exp])).code).toBe(0);
      expect(statSync(join(exp, 'reminders.ndjson')).mode & 0o777).toBe(0o600);
      const target = join(dir, 'target');
      writeFileSync(target, 'keep\n');
      symlinkSync(target, join(exp, 'uuid-map.json'));
      const other = await startTestServer({ inProcess: false });
      try {
        const to = await other.newAccount();
        const imp = await runPm(['import', '--dir', exp], { env: { PM_BASE_URL: other.url, PM_TOKEN: to.token } });
        expect(imp.code).toBe(0);
      } finally {
        await other.close();
      }
      expect(readFileSync(target, 'utf8')).toBe('keep\n');
      expect(lstatSync(join(exp, 'uuid-map.json')).isSymbolicLink()).toBe(false);
      expect(statSync(join(exp, 'uuid-map.json')).mode & 0o777).toBe(0o600);

      const failed = join(dir, 'failed.ndjson');
      symlinkSync(target, failed);
      const input = join(dir, 'in.ndjson');
      writeFileSync(input, '{"title":"x","colour":"red"}\n{"title":"ok from file"}\n');
      const bulk = await direct(['reminders', 'create', '--from-file', input, '--failed', failed]);
      expect(bulk.code).toBe(1);
      expect(readFileSync(target, 'utf8')).toBe('keep\n');
      expect(readFileSync(failed, 'utf8')).toContain('"_error"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a password in the base URL', () => {
  it('is never printed: --debug, --dry-run, config list, auth status', async () => {
    const u = new URL(server.url);
    const base = `http://alice:s3cret-pw@${u.host}`;
    const env = { PM_BASE_URL: base, PM_TOKEN: acct.token };
    const runs = [
      await runPm(['reminders', 'list', '--debug'], { env }),
      await runPm(['reminders', 'create', '--title', 'x', '--dry-run'], { env }),
      await runPm(['config', 'list'], { env }),
      await runPm(['config', 'list', '--json'], { env }),
      await runPm(['config', 'get', 'base_url'], { env }),
      await runPm(['auth', 'status'], { env }),
      await runPm(['auth', 'status', '--json'], { env }),
    ];
    for (const r of runs) {
      expect(`${r.stdout}${r.stderr}`).not.toContain('s3cret-pw');
      expect(`${r.stdout}${r.stderr}`).toContain('alice:***@');
    }
  });
});

describe('text from a server', () => {
  it('reaches the terminal without its control characters (ESC, BEL, CSI)', async () => {
    const evil = 'Bad \u001b]0;owned\u0007\u001b[2J\u009b31m title';
    front.script('POST', {
      kind: 'respond',
      status: 422,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: evil, errors: { 'ti\u001b[1mtle': [evil] } }),
    });
    const r = await pm(['reminders', 'create', '--title', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Bad ');
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const rec = await acct.api('POST', '/reminders', { title: `in a record ${evil}` });
    const shown = await runPm(['reminders', 'get', rec.body.data.uuid], {
      env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token },
      tty: true,
    });
    expect(shown.stdout).toContain('in a record');
    expect(shown.stdout.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('text that is not what it claims', () => {
  it('a body that is not UTF-8 is a 400, not silently replaced', async () => {
    const bytes = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await acct.api('POST', '/reminders', undefined, {
      raw: bytes,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('The request body is not valid UTF-8.');
  });

  it('a Latin-1 CSV is refused, naming the line, before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-latin1-'));
    try {
      const file = join(dir, 'in.csv');
      writeFileSync(file, Buffer.concat([Buffer.from('title\nfine\ncaf'), Buffer.from([0xe9]), Buffer.from('\n')]));
      const before = front.count('POST');
      const r = await pm(['reminders', 'create', '--from-file', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--from-file ${file} line 3: not UTF-8 text`);
      expect(front.count('POST')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a record too large to send', () => {
  it('in --from-file fails alone, naming its line, and is never sent; the other records go through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-large-'));
    try {
      const big = 'x'.repeat(2 * 1024 * 1024);
      const files: [string, string, string][] = [
        ['in.ndjson', `{"title":"a"}\n{"title":"${big}"}\n`, 'line 2'],
        ['in.json', JSON.stringify([{ title: 'a' }, { title: big }]), 'line 2'],
      ];
      for (const [name, text, where] of files) {
        const file = join(dir, name);
        writeFileSync(file, text);
        const before = front.count('POST');
        const r = await pm(['reminders', 'create', '--from-file', file]);
        expect(r.code, name).toBe(1);
        expect(r.stderr, name).toContain(`${where}: a record of`);
        expect(r.stderr, name).toMatch(/larger than .*1 MiB/);
        expect(r.stderr, name).toContain('created 1, failed 1');
        expect(front.count('POST'), name).toBe(before + 1);
      }
      // A CSV row past the limit stops the CSV reader itself: nothing is sent.
      const csv = join(dir, 'in.csv');
      writeFileSync(csv, `title\na\n${big}\n`);
      const before = front.count('POST');
      const r = await pm(['reminders', 'create', '--from-file', csv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/line 3/);
      expect(front.count('POST')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--timeout', () => {
  it('is a deadline for the whole answer: a server trickling a byte at a time is given up on', async () => {
    const trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    try {
      const port = (trickle.address() as AddressInfo).port;
      const started = Date.now();
      const r = await runPm(['reminders', 'list', '--timeout', '1', '--retries', '0'], {
        env: { PM_BASE_URL: `http://127.0.0.1:${port}`, PM_TOKEN: 'x' },
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/timed out reading the answer|took longer than 1 s/);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      trickle.closeAllConnections();
      await new Promise((resolve) => trickle.close(resolve));
    }
  });
});

describe('PM_TOKEN and a server a cloned repository names', () => {
  it('is not sent to a base URL that only a project config names; named by the user, it is (bin/pm)', async () => {
    // Another server (here, one that passes what it is sent on to the test server).
    const other = await startFaultyServer({ upstream: server.url });
    const home = tempHome();
    try {
      // The user's own server in the user config, PM_TOKEN exported, and a repository whose
      // .pmrc.json names another server.
      mkdirSync(join(home, '.config', 'pm'), { recursive: true });
      const userConfig = join(home, '.config', 'pm', 'config.json');
      writeFileSync(userConfig, JSON.stringify({ base_url: server.url }), { mode: 0o600 });
      const repo = join(home, 'cloned');
      mkdirSync(join(repo, '.git'), { recursive: true });
      writeFileSync(join(repo, '.pmrc.json'), JSON.stringify({ base_url: other.url }));
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PM_TOKEN: acct.token };

      const r = await pmBin(['reminders', 'list'], env, { cwd: repo });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(
        `PM_TOKEN is not sent to ${other.url}: that server is named only by project config ${join(repo, '.pmrc.json')}, and a token from the environment goes only to a server you named yourself.`,
      );
      expect(r.stderr).toContain(`--base-url ${other.url}, PM_BASE_URL=${other.url}, or base_url in your user config`);
      expect(other.requests).toEqual([]);
      // Outside the repository, the user's own server gets it.
      expect((await pmBin(['reminders', 'list'], env, { cwd: home })).code).toBe(0);

      // Named by the user (a flag, the environment, the user config), the token goes there.
      const sentThere = () => other.requests.at(-1)?.headers.authorization;
      expect((await pmBin(['reminders', 'list', '--base-url', other.url], env, { cwd: repo })).code).toBe(0);
      expect(sentThere()).toBe(`Bearer ${acct.token}`);
      other.reset();
      expect((await pmBin(['reminders', 'list'], { ...env, PM_BASE_URL: other.url }, { cwd: repo })).code).toBe(0);
      expect(sentThere()).toBe(`Bearer ${acct.token}`);
      other.reset();
      writeFileSync(
        userConfig,
        JSON.stringify({ base_url: server.url, profiles: { theirs: { base_url: other.url } } }),
        { mode: 0o600 },
      );
      expect((await pmBin(['reminders', 'list'], env, { cwd: repo })).code).toBe(0);
      expect(sentThere()).toBe(`Bearer ${acct.token}`);
    } finally {
      await other.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
