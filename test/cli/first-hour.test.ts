/**
 * Sharp edges a new user met (the project's first-hour review), each as the user would meet it:
 * in-process runs against the real server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
const MISSING = '0f0e0d0c-0b0a-4909-8807-060504030201';

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
});
afterAll(() => server.close());

const pm = (args: string[]) => runPm(args, { env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token } });

describe('delete --ignore-not-found', () => {
  it('a record already gone is not an error; without the flag it is exit 3', async () => {
    const made = await acct.api('POST', '/reminders', { title: 'gone soon' });
    const uuid = made.body.data.uuid as string;
    expect((await pm(['reminders', 'delete', uuid, '--yes'])).code).toBe(0);
    expect((await pm(['reminders', 'delete', uuid, '--yes'])).code).toBe(3);
    const again = await pm(['reminders', 'delete', uuid, MISSING, '--yes', '--ignore-not-found', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([
      { uuid, deleted: true },
      { uuid: MISSING, deleted: true },
    ]);
  });
});

describe('list --all with --page', () => {
  it('is refused rather than silently starting half way', async () => {
    const r = await pm(['reminders', 'list', '--all', '--page', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--all fetches every page from the first');
  });
});

describe('pm auth status', () => {
  it('exits 4 when there is no usable token, as scripts expect', async () => {
    const none = await runPm(['auth', 'status', '--offline'], { env: { PM_BASE_URL: server.url } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('no token for');
    const ok = await pm(['auth', 'status']);
    expect(ok.code).toBe(0);
  });
});

describe('https:// to a server that speaks plain http', () => {
  it('says the server does not speak TLS, not that a certificate is untrusted', async () => {
    const r = await runPm(['reminders', 'list', '--retries', '0'], {
      env: { PM_BASE_URL: server.url.replace('http:', 'https:'), PM_TOKEN: acct.token },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('does not speak TLS');
    expect(r.stderr).not.toMatch(/certificate/);
  });
});

describe('one failure, one exit code', () => {
  it('several records that all fail the same way exit with that way’s code, by arguments or stdin; mixed, 1', async () => {
    const other = '1f0e0d0c-0b0a-4909-8807-060504030201';
    expect((await pm(['reminders', 'delete', MISSING, other, '--yes'])).code).toBe(3);
    const stdin = await runPm(['reminders', 'delete', '-', '--yes'], {
      env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token },
      stdin: `${MISSING}\n${other}\n`,
    });
    expect(stdin.code).toBe(3);
    // Mixed: one not found, one refused by the server as invalid.
    const made = await acct.api('POST', '/reminders', { title: 'to update' });
    const mixed = await runPm(['reminders', 'update', '--from-file', '-', '--format', 'ndjson'], {
      env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token },
      stdin: `{"uuid":"${MISSING}","title":"x"}\n{"uuid":"${made.body.data.uuid}","colour":"red"}\n`,
    });
    expect(mixed.code).toBe(1);
  });

  it('pm serve tokens revoke of a token that is not there is not found (3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-revoke-'));
    try {
      const r = await runPm(['serve', 'tokens', 'revoke', '99', '--data', join(dir, 'pm.db')]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('No active token 99');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a usage error', () => {
  it('is the error and one line saying where the usage is, not the whole help', async () => {
    for (const args of [
      ['properties', 'list', '--bedrooms', 'abc'],
      ['properties', 'list', '-o', 'xml'],
      ['reminders', 'create', '--title', 't', '--due-at', 'someday soonish'],
    ]) {
      const r = await pm(args);
      expect(r.code, args.join(' ')).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines.length, r.stderr).toBeLessThanOrEqual(3);
      expect(lines[0]).toMatch(/^error: --(bedrooms|output|due-at)/);
      expect(lines.at(-1)).toBe(`Run 'pm ${args[0]} ${args[1]} --help' for usage.`);
    }
  });
});

describe('a pager for long output on a terminal', () => {
  const paged = async (args: string[], opts: { tty: boolean; pager?: string }) => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-pager-'));
    const file = join(dir, 'paged.txt');
    const r = await runPm(args, {
      tty: opts.tty,
      env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token, PM_PAGER: opts.pager ?? `cat > '${file}'` },
    });
    const got = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    rmSync(dir, { recursive: true, force: true });
    return { ...r, paged: got };
  };

  it('pages a list through PM_PAGER on a terminal: the table, then the footer', async () => {
    await acct.api('POST', '/reminders', { title: 'paged one' });
    const r = await paged(['reminders', 'list', '--title', 'paged one'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    // In colour, as the terminal would have had it (less -R shows it).
    expect(r.paged?.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(
      /^uuid +title +due_at +anytime +property\n[0-9a-f]{8} +paged one +no\nshowing 1-1 of 1, page 1 of 1\n$/,
    );
  });

  it('never when piped, with --no-pager, or with PM_PAGER=cat', async () => {
    const piped = await paged(['reminders', 'list', '--title', 'paged one'], { tty: false });
    expect(piped.paged).toBeUndefined();
    expect(piped.stdout).toContain('paged one');
    const off = await paged(['reminders', 'list', '--title', 'paged one', '--no-pager'], { tty: true });
    expect(off.paged).toBeUndefined();
    expect(off.stdout).toContain('paged one');
    const cat = await paged(['reminders', 'list', '--title', 'paged one'], { tty: true, pager: 'cat' });
    expect(cat.stdout).toContain('paged one');
  });
});

describe('notes show their parent', () => {
  it('in the table (a parent column) and in --json fields; get shows it too', async () => {
    const p = await acct.api('POST', '/properties', { address: '5 Oak Rd', postcode: 'LS5 5OO' });
    const uuid = p.body.data.uuid as string;
    const n = await acct.api('POST', `/properties/${uuid}/notes`, { content: 'parent shown' });
    const table = await pm(['notes', 'list', '--content', 'parent shown']);
    expect(table.stdout).toBe(`${n.body.data.uuid}\tparent shown\tproperty ${uuid}\n`);
    const json = await pm(['notes', 'list', '--content', 'parent shown', '--json', 'content,property']);
    expect(JSON.parse(json.stdout)).toEqual([
      { content: 'parent shown', property: { data: { uuid, address: '5 Oak Rd', postcode: 'LS5 5OO' } } },
    ]);
    const one = await pm(['notes', 'get', n.body.data.uuid]);
    expect(one.stdout).toContain(`property\t${uuid} (5 Oak Rd, LS5 5OO)\n`);
  });

  it('a server that does not know the embed gets the list without it', async () => {
    const foreign = await startFaultyServer({ upstream: server.url });
    try {
      foreign.script('GET', {
        kind: 'respond',
        status: 400,
        body: '{"message":"Unknown query parameter \\"embed\\"."}',
      });
      const r = await runPm(['notes', 'list', '--content', 'parent shown'], {
        env: { PM_BASE_URL: foreign.url, PM_TOKEN: acct.token },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^[0-9a-f-]{36}\tparent shown\t\n$/);
      expect(foreign.count('GET')).toBe(2);
    } finally {
      await foreign.close();
    }
  });
});
