/**
 * The progress bar of a big upload or download: on stderr when it is a terminal, none when it is
 * not (a pipe, a log), and none for a small file on a terminal either.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let dir: string;
let property: string;

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-progress-'));
  property = (await acct.api('POST', '/properties', { address: '1 High St', postcode: 'LS1 1AA' })).body.data.uuid;
  writeFileSync(join(dir, 'survey.bin'), randomBytes(9 * 1024 * 1024));
  writeFileSync(join(dir, 'small.txt'), 'small\n');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const pm = (args: string[], tty: boolean) =>
  runPm(args, { env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token }, cwd: dir, tty });

describe('a progress bar', () => {
  it('shows on a terminal for a file of more than a few MB, up and down', async () => {
    const up = await pm(['attachments', 'upload', 'survey.bin', '--property', property], true);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toContain('survey.bin');
    expect(up.stderr).toMatch(/MiB\/s/);
    const uuid = up.stdout.trim();
    const down = await pm(['attachments', 'download', uuid, '--to', 'copy.bin'], true);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toMatch(/MiB\/s/);
  });

  it('never in a pipe, nor for a small file', async () => {
    const piped = await pm(['attachments', 'upload', 'survey.bin', '--property', property], false);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toMatch(/MiB\/s/);
    const small = await pm(['attachments', 'upload', 'small.txt', '--property', property], true);
    expect(small.code, small.stderr).toBe(0);
    expect(small.stderr).not.toMatch(/MiB\/s/);
  });
});
