/**
 * What a write says, against the real server: one line on stderr saying what it did, whether
 * stderr is a terminal or not, for every write alike (create, update, delete, upload); -q and
 * --json ask for the data alone and get nothing else. A file that cannot be read is named in
 * words; an article fits its word.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainstServer } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let dir: string;
let property: string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }));
const inDir = (args: string[], tty = false) => pm(args, { cwd: dir, tty });

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-talk-'));
  writeFileSync(join(dir, 'lease.pdf'), '%PDF-1.4 lease\n');
  property = (await acct.api('POST', '/properties', { address: '1 High St', postcode: 'LS1 1AA' })).body.data.uuid;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

describe('every write says what it did on stderr, a terminal or not', () => {
  for (const tty of [false, true])
    it(`create, update, delete, upload: one line each (${tty ? 'terminal' : 'piped'})`, async () => {
      const made = await pm(['reminders', 'create', '--title', 'Talk'], { tty });
      expect(made.code, made.stderr).toBe(0);
      const uuid = /Created reminder (\S+)\.\n$/.exec(made.stderr)?.[1] as string;
      expect(uuid).toMatch(UUID);
      const changed = await pm(['reminders', 'update', uuid, '--title', 'Talked'], { tty });
      expect(changed.stderr).toBe(`Updated reminder ${uuid}.\n`);
      const up = await inDir(['attachments', 'upload', 'lease.pdf', '--property', property], tty);
      expect(up.code, up.stderr).toBe(0);
      expect(up.stderr).toMatch(/^Uploaded lease\.pdf \(15 bytes\) as attachment [0-9a-f-]{36}\.\n$/);
      const gone = await pm(['reminders', 'delete', uuid, '--yes'], { tty });
      expect(gone.stderr).toBe(`Deleted reminder ${uuid}.\n`);
    });

  it('-q: the uuid alone on stdout, nothing on stderr (upload takes -q as every write does)', async () => {
    const made = await pm(['reminders', 'create', '--title', 'Quiet', '-q']);
    expect(made).toEqual({ code: 0, stdout: expect.stringMatching(/^[0-9a-f-]{36}\n$/), stderr: '' });
    const up = await inDir(['attachments', 'upload', 'lease.pdf', '--property', property.slice(0, 8), '-q']);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout.trim()).toMatch(UUID);
    const both = await inDir(['attachments', 'upload', 'lease.pdf', '--property', property, '-q', '--json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--json and --quiet cannot be used together.');
  });

  it('--json: the data alone, nothing on stderr', async () => {
    const made = await pm(['reminders', 'create', '--title', 'Json', '--json']);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).title).toBe('Json');
    expect(made.stderr).toBe('');
    const up = await inDir(['attachments', 'upload', 'lease.pdf', '--property', property, '--json']);
    expect(JSON.parse(up.stdout).name).toBe('lease.pdf');
    expect(up.stderr).toBe('');
  });
});

describe('words', () => {
  it('a file that is not there is named, with what is wrong in words', async () => {
    const up = await inDir(['attachments', 'upload', 'nope.pdf', '--property', property]);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain('error: cannot read nope.pdf: there is no such file.');
    expect(up.stderr).not.toContain('ENOENT');
    const data = await inDir(['reminders', 'create', '--from-file', 'missing.csv']);
    expect(data.code).toBe(2);
    expect(data.stderr).toContain('cannot read missing.csv: there is no such file.');
    expect(data.stderr).not.toContain('ENOENT');
  });

  it('the article fits the word: "an attachment"', async () => {
    const up = await inDir(['attachments', 'upload', 'lease.pdf']);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain('error: an attachment belongs to a record: give --property or --contact.');
    const help = await pm(['attachments', 'upload', '--help']);
    expect(help.stdout).toContain('Upload files as attachments of a property or a contact');
  });
});
