/**
 * `pm attachments` run as the built bin/pm: against pm's server over HTTP (on either store: the
 * postgres project runs this file again) and on the embedded default. Files uploaded (from disk
 * and from standard input), skipped when already there, listed by their property, downloaded
 * into place and checked (a damaged copy on the server is refused, nothing written), never
 * overwritten without --clobber; the server's size limit read as its message.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, listeningUrl, pmBin, tempHome } from '../helpers/cli.js';
import { startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, ON_POSTGRES, startTestServer, type TestServer } from '../helpers/server.js';
import { onlooker, uploadsCopying } from '../helpers/spool.js';

const LIMIT = 3 * 1024 * 1024;
let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ maxAttachmentBytes: LIMIT });
  dir = mkdtempSync(join(tmpdir(), 'pm-attachments-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A fresh account, and bin/pm against it in a working directory of its own. */
async function setUp() {
  const acct: Account = await server.newAccount();
  const cwd = mkdtempSync(join(dir, 'run-'));
  const env = { HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: server.url, PM_TOKEN: acct.token };
  const pm = (args: readonly string[], stdin?: string) =>
    pmBin(args, env, { cwd, ...(stdin === undefined ? {} : { stdin }) });
  const property = (await acct.api('POST', '/properties', { address: '1 High Street', postcode: 'LS1 1AA' })).body.data
    .uuid as string;
  return { acct, cwd, pm, property };
}

describe('pm attachments against pm serve', () => {
  it('uploads files, skips them the second time, lists them by property, and shows the count', async () => {
    const { cwd, pm, property } = await setUp();
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(1_200_000)]);
    writeFileSync(join(cwd, 'gas-safety.pdf'), pdf);
    writeFileSync(join(cwd, 'inventory.txt'), 'Kitchen: 1 fridge\n');
    const up = await pm([
      'attachments',
      'upload',
      'gas-safety.pdf',
      'inventory.txt',
      '--property',
      property.slice(0, 8),
      '--description',
      'Move-in',
    ]);
    expect(up.code, up.stderr).toBe(0);
    const uuids = up.stdout.trim().split('\n');
    expect(uuids).toHaveLength(2);
    expect(up.stderr).toContain('Uploaded gas-safety.pdf');
    const again = await pm([
      'attachments',
      'upload',
      'gas-safety.pdf',
      'inventory.txt',
      '--property',
      property,
      '--skip-existing',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('Skipped gas-safety.pdf');
    const listed = await pm(['attachments', 'list', '--property', property, '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const records = JSON.parse(listed.stdout) as {
      name: string;
      sha256: string;
      type: string;
      mime_type: string;
      description: string;
    }[];
    expect(records.map((x) => [x.name, x.mime_type, x.description])).toEqual([
      ['gas-safety.pdf', 'application/pdf', 'Move-in'],
      ['inventory.txt', 'text/plain', 'Move-in'],
    ]);
    expect(records[0]?.sha256).toBe(sha256(pdf));
    const shown = await pm(['properties', 'get', property, '-o', 'json']);
    expect(JSON.parse(shown.stdout).num_attachments).toBe(2);
    const got = await pm(['attachments', 'get', uuids[0] as string, '-o', 'json']);
    expect(JSON.parse(got.stdout).download_url).toBe(`${server.url}/attachments/${uuids[0]}/download`);
  });

  it('uploads standard input under --name; - without --name is a usage error naming it', async () => {
    const { pm, property } = await setUp();
    const piped = await pm(
      ['attachments', 'upload', '-', '--name', 'notes.txt', '--property', property],
      'from a pipe\n',
    );
    expect(piped.code, piped.stderr).toBe(0);
    const uuid = piped.stdout.trim();
    const back = await pm(['attachments', 'download', uuid, '--to', '-']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe('from a pipe\n');
    const nameless = await pm(['attachments', 'upload', '-', '--property', property], 'x');
    expect(nameless.code).toBe(2);
    expect(nameless.stderr).toContain('--name');
    const parentless = await pm(['attachments', 'upload', 'a.txt']);
    expect(parentless.code).toBe(2);
    expect(parentless.stderr).toContain('--property or --contact');
  });

  it('downloads to standard output through a pipe, every byte, however slowly the reader takes them', async () => {
    const { acct, cwd, pm, property } = await setUp();
    const bytes = randomBytes(2_500_000);
    writeFileSync(join(cwd, 'scan.bin'), bytes);
    const uuid = (await pm(['attachments', 'upload', 'scan.bin', '--property', property])).stdout.trim();
    const env = { HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: server.url, PM_TOKEN: acct.token };
    const child = spawn(process.execPath, [BIN, 'attachments', 'download', uuid, '--to', '-'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    // A reader that takes nothing for a while: the pipe fills, and pm waits for it to drain.
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 500);
    const [code] = await once(child, 'close');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(bytes));
  });

  it('downloads into place, checked; never over a file without --clobber', async () => {
    const { cwd, pm, property } = await setUp();
    const bytes = randomBytes(2_500_000);
    writeFileSync(join(cwd, 'scan.bin'), bytes);
    const uuid = (await pm(['attachments', 'upload', 'scan.bin', '--property', property])).stdout.trim();
    mkdirSync(join(cwd, 'out'));
    const down = await pm(['attachments', 'download', uuid, '--dir', 'out']);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout.trim()).toBe(join(cwd, 'out', 'scan.bin'));
    expect(sha256(readFileSync(join(cwd, 'out', 'scan.bin')))).toBe(sha256(bytes));
    writeFileSync(join(cwd, 'out', 'scan.bin'), 'mine');
    const refused = await pm(['attachments', 'download', uuid, '--dir', 'out']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--clobber');
    expect(readFileSync(join(cwd, 'out', 'scan.bin'), 'utf8')).toBe('mine');
    const clobbered = await pm(['attachments', 'download', uuid, '--to', 'out/scan.bin', '--clobber']);
    expect(clobbered.code, clobbered.stderr).toBe(0);
    expect(sha256(readFileSync(join(cwd, 'out', 'scan.bin')))).toBe(sha256(bytes));
    expect(readdirSync(join(cwd, 'out'))).toEqual(['scan.bin']);
  });

  it('refuses a copy that does not match its record, and writes nothing', async () => {
    const { cwd, pm, property } = await setUp();
    writeFileSync(join(cwd, 'lease.txt'), 'The tenant shall pay 950 a month.\n');
    const uuid = (await pm(['attachments', 'upload', 'lease.txt', '--property', property])).stdout.trim();
    // The stored bytes changed under the record (a damaged disk, a hand-edited database).
    await server.sql('UPDATE attachment_chunks SET data = ? WHERE attachment = ? RETURNING seq', [
      Buffer.from('The tenant shall pay 590 a month.\n'),
      uuid,
    ]);
    mkdirSync(join(cwd, 'out'));
    const down = await pm(['attachments', 'download', uuid, '--dir', 'out']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('does not match its record');
    expect(readdirSync(join(cwd, 'out'))).toEqual([]);
  });

  it('says at once when the place it downloads to cannot be written, and leaves nothing behind', async () => {
    const { cwd, pm, property } = await setUp();
    writeFileSync(join(cwd, 'plan.bin'), randomBytes(300_000));
    const uuid = (await pm(['attachments', 'upload', 'plan.bin', '--property', property])).stdout.trim();
    const missing = await pm(['attachments', 'download', uuid, '--to', 'nowhere/plan.bin']);
    expect({ code: missing.code, stdout: missing.stdout }).toEqual({ code: 1, stdout: '' });
    expect(missing.stderr).toContain(`cannot write ${join(cwd, 'nowhere', 'plan.bin')}: ENOENT`);
    expect(readdirSync(cwd)).toEqual(['plan.bin']);
    // A file where the folder should be: the same, and the file left as it was.
    writeFileSync(join(cwd, 'notes'), 'mine');
    const blocked = await pm(['attachments', 'download', uuid, '--to', 'notes/plan.bin']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`cannot write ${join(cwd, 'notes', 'plan.bin')}: ENOTDIR`);
    expect(readFileSync(join(cwd, 'notes'), 'utf8')).toBe('mine');
  });

  it('a download cut off on the way is the connection, not the disk: nothing is left of it', async () => {
    const { acct, cwd, pm, property } = await setUp();
    writeFileSync(join(cwd, 'survey.bin'), randomBytes(2_000_000));
    const uuid = (await pm(['attachments', 'upload', 'survey.bin', '--property', property])).stdout.trim();
    const cut = await startFaultyServer({ upstream: server.url });
    onTestFinished(() => cut.close());
    // The record comes whole; every download after it, half its bytes and then a closed connection.
    cut.script('GET', { kind: 'forward' }, ...Array.from({ length: 8 }, () => ({ kind: 'forward-truncate' as const })));
    const env = { HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: cut.url, PM_TOKEN: acct.token };
    mkdirSync(join(cwd, 'out'));
    const down = await pmBin(['attachments', 'download', uuid, '--dir', 'out'], env, { cwd });
    expect({ code: down.code, stdout: down.stdout }).toEqual({ code: 5, stdout: '' });
    expect(down.stderr).toMatch(
      /^error: the download of survey\.bin was cut off after \d+ of 2000000 bytes \(the connection was closed\): nothing was written\.\n/,
    );
    expect(down.stderr).not.toContain('cannot write');
    expect(readdirSync(join(cwd, 'out'))).toEqual([]);
  });

  it("reads the server's 413 while it sends a file over the limit", async () => {
    const { cwd, pm, property } = await setUp();
    writeFileSync(join(cwd, 'video.mp4'), randomBytes(LIMIT + 1));
    const up = await pm(['attachments', 'upload', 'video.mp4', '--property', property]);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain(
      'The file is larger than the 3 MiB (3145728 bytes) this server takes for an attachment.',
    );
    expect((await pm(['attachments', 'list', '-o', 'json'])).stdout.trim()).toBe('[]');
  });
});

describe('an upload cut off on its way', () => {
  it('is not sent again to a server that does not say it keeps idempotency keys (it may have arrived): one POST, exit 5', async () => {
    // A server that takes the connection, reads the start of the request, and drops it: the
    // upload, and pm's question whether it keeps keys (its /openapi.json) alike.
    let posts = 0;
    const dropping = createServer((socket) => {
      socket.once('data', (d: Buffer) => {
        if (d.toString('latin1').startsWith('POST ')) posts++;
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const { port } = dropping.address() as AddressInfo;
    try {
      const cwd = mkdtempSync(join(dir, 'dropped-'));
      writeFileSync(join(cwd, 'plan.pdf'), randomBytes(2_000_000));
      const env = {
        HOME: tempHome(),
        PATH: process.env.PATH ?? '',
        PM_BASE_URL: `http://127.0.0.1:${port}`,
        PM_TOKEN: 'pm_test',
      };
      const property = '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15';
      const up = await pmBin(['attachments', 'upload', 'plan.pdf', '--property', property], env, { cwd });
      expect(up.code, up.stderr).toBe(5);
      expect(posts).toBe(1);
    } finally {
      dropping.close();
    }
  });
});

describe('pm serve killed half-way through an upload', () => {
  it('leaves nothing of it once it starts again: no attachment, no chunk in the database, no file in --upload-dir', async () => {
    const home = tempHome();
    const uploads = mkdtempSync(join(dir, 'uploads-'));
    const data = join(home, 'pm.db');
    const where = ON_POSTGRES ? [] : ['--data', data];
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ...(ON_POSTGRES ? { PM_DATABASE_URL: server.postgres.database.url } : {}),
    };
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--upload-dir', uploads, ...where], { env });
    try {
      const url = await listeningUrl(child);
      const acct = ON_POSTGRES ? await server.newAccount() : undefined;
      const token = acct?.token ?? readFileSync(`${data}.token`, 'utf8').trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const made = await fetch(`${url}/properties`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ address: '1 High Street', postcode: 'LS1 1AA' }),
      });
      const property = ((await made.json()) as { data: { uuid: string } }).data.uuid;
      const u = new URL(url);
      const socket = netConnect(Number(u.port), u.hostname);
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(
        `POST /properties/${property}/attachments?name=lease.pdf HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/pdf\r\nContent-Length: ${40 * 1024 * 1024}\r\n\r\n`,
      );
      socket.write(randomBytes(8 * 1024 * 1024));
      const count = async (sql: string) =>
        ON_POSTGRES ? Number((await server.sql(sql))[0]?.n) : Number(countIn(data, sql));
      const stray = () =>
        count('SELECT COUNT(*) AS n FROM attachment_chunks WHERE attachment NOT IN (SELECT uuid FROM attachments)');
      // Its bytes are on their way: in the data file on SQLite, a chunk a transaction, belonging
      // to no attachment; in the upload's transaction (a COPY under way) on PostgreSQL...
      const look = ON_POSTGRES ? await onlooker(server.postgres.database.url) : undefined;
      onTestFinished(() => look?.close());
      if (look) await expect.poll(() => uploadsCopying(look.sql), { timeout: 10_000 }).toHaveLength(1);
      else await expect.poll(stray, { timeout: 10_000 }).toBeGreaterThan(0);
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      socket.destroy();
      // ...and nothing of them is left anywhere: on PostgreSQL, the transaction ends with its
      // connection; on SQLite the server deletes them as it starts again.
      if (look) await expect.poll(() => uploadsCopying(look.sql), { timeout: 10_000 }).toEqual([]);
      else {
        const again = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...where], { env });
        try {
          await listeningUrl(again);
        } finally {
          const gone = once(again, 'exit');
          again.kill('SIGKILL');
          await gone;
        }
      }
      expect(readdirSync(uploads)).toEqual([]);
      expect(await stray()).toBe(0);
      expect(await count("SELECT COUNT(*) AS n FROM attachments WHERE name = 'lease.pdf' AND size > 10000000")).toBe(0);
      if (!ON_POSTGRES) expect(await count('SELECT COUNT(*) AS n FROM attachment_chunks')).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

/** A count the SQL asks of a data file (opened read-only). */
function countIn(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return Number((db.prepare(sql).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe('pm export and pm import', () => {
  it('carry the files beside the NDJSON, checked by SHA-256; a second import uploads nothing again', async () => {
    const from = await setUp();
    const scan = randomBytes(1_300_000);
    writeFileSync(join(from.cwd, 'scan.bin'), scan);
    writeFileSync(join(from.cwd, 'lease.txt'), 'Twelve months from 1 December.\n');
    expect((await from.pm(['attachments', 'upload', 'scan.bin', 'lease.txt', '--property', from.property])).code).toBe(
      0,
    );
    const exported = await from.pm(['export', '--dir', 'out']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('2 attachments');
    const to = await setUp();
    const env = { HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: server.url, PM_TOKEN: to.acct.token };
    const imported = await pmBin(['import', '--dir', 'out'], env, { cwd: from.cwd });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('2 attachments');
    const listed = (await to.acct.api('GET', '/attachments?embed=property')).body.data as {
      uuid: string;
      name: string;
      sha256: string;
    }[];
    expect(listed.map((x) => [x.name, x.sha256])).toEqual([
      ['scan.bin', sha256(scan)],
      ['lease.txt', sha256(Buffer.from('Twelve months from 1 December.\n'))],
    ]);
    const copy = await send(to.acct.token, `/attachments/${listed[0]?.uuid}/download`);
    expect(sha256(copy)).toBe(sha256(scan));
    const again = await pmBin(['import', '--dir', 'out'], env, { cwd: from.cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('0 attachments');
    expect((await to.acct.api('GET', '/attachments')).body.meta.pagination.total).toBe(2);
    // A file changed after the export is refused by name, before it is sent.
    const third = await setUp();
    const file = join(
      from.cwd,
      'out',
      'attachments',
      String(
        JSON.parse(readFileSync(join(from.cwd, 'out', 'attachments.ndjson'), 'utf8').split('\n')[0] as string).uuid,
      ),
    );
    writeFileSync(file, 'not the scan');
    const env3 = { ...env, PM_TOKEN: third.acct.token };
    rmSync(join(from.cwd, 'out', 'uuid-map.json'));
    const refused = await pmBin(['import', '--dir', 'out'], env3, { cwd: from.cwd });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is not the file that was exported');
    expect((await third.acct.api('GET', '/attachments')).body.data).toEqual([]);
  });
});

/** The bytes of a download, read with a token. */
async function send(token: string, path: string): Promise<Buffer> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  return Buffer.from(await res.arrayBuffer());
}

describe('pm attachments on the embedded default', () => {
  it('uploads and downloads with no server', async () => {
    const cwd = mkdtempSync(join(dir, 'embedded-'));
    const env = { HOME: tempHome(), PATH: process.env.PATH ?? '' };
    const pm = (args: readonly string[]) => pmBin(args, env, { cwd });
    const made = await pm(['contacts', 'create', '--name', 'Ann', '--email', 'ann@example.com', '-o', 'json']);
    const contact = JSON.parse(made.stdout).uuid as string;
    const bytes = randomBytes(1_500_000);
    writeFileSync(join(cwd, 'id.jpg'), bytes);
    const up = await pm(['attachments', 'upload', 'id.jpg', '--contact', contact]);
    expect(up.code, up.stderr).toBe(0);
    const down = await pm(['attachments', 'download', up.stdout.trim(), '--to', 'copy.jpg']);
    expect(down.code, down.stderr).toBe(0);
    expect(sha256(readFileSync(join(cwd, 'copy.jpg')))).toBe(sha256(bytes));
    expect(JSON.parse((await pm(['contacts', 'get', contact, '-o', 'json'])).stdout).num_attachments).toBe(1);
  });
});
