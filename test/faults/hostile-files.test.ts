/**
 * A hostile server against the user's files and terminal: `pm attachments download|upload`,
 * `pm export` and `pm import` run in-process against an HTTP server written here, which answers
 * what it likes (a uuid that is a path, a name that is `..` or 300 bytes long or holds a bidi
 * override, more bytes than the record says, escape sequences), or stands in front of the real
 * server and swaps a file for a link while pm runs. pm writes only inside the folder it was
 * given, prints nothing raw, and reads each file it sends through the one descriptor it checked.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

type Rec = Record<string, unknown>;

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const UUID = 'abcdef12-3456-4789-8abc-def012345678';
const BYTES = 'The tenant shall pay 950.';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pm-hostile-files-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A working directory of its own, with an empty folder `out` in it. */
function workDir(): string {
  const cwd = mkdtempSync(join(root, 'run-'));
  mkdirSync(join(cwd, 'out'));
  return cwd;
}

interface Hostile {
  readonly url: string;
  /** Each request's method and path, as they came. */
  readonly requests: string[];
  /** Bytes of a download written to the socket before it closed. */
  sent: number;
}

/**
 * A server that says what the test wants: `record` for every attachment (by uuid, and as the one
 * found for any uuid prefix), `download` for every download, `uploaded` for an upload.
 */
async function hostile(
  record: Rec,
  download: (res: ServerResponse, h: Hostile) => void = (res) => res.end(BYTES),
  uploaded: Rec = record,
): Promise<Hostile> {
  const h: Hostile = { url: '', requests: [], sent: 0 };
  const json = (res: ServerResponse, status: number, v: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    h.requests.push(`${req.method} ${req.url}`);
    req.resume();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path.endsWith('/attachments')) req.on('end', () => json(res, 201, { data: uploaded }));
    else if (path.endsWith('/download')) download(res, h);
    else if (path === '/attachments')
      json(res, 200, {
        data: [record],
        meta: { pagination: { total: 1, count: 1, per_page: 10, current_page: 1, total_pages: 1 } },
      });
    else if (path.startsWith('/attachments/')) json(res, 200, { data: record });
    else json(res, 404, { message: 'Not found.' });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  return Object.assign(h, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** pm in `cwd` against `url` (any token: the server here takes all). */
const pmAt = (url: string, cwd: string, args: readonly string[], tty = false) =>
  runPm(args, { cwd, tty, env: { PM_BASE_URL: url, PM_TOKEN: 'pm_hostile' } });

const attachment = (over: Rec): Rec => ({
  uuid: UUID,
  name: 'lease.txt',
  size: Buffer.byteLength(BYTES),
  sha256: sha256(BYTES),
  mime_type: 'text/plain',
  ...over,
});

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => statSync(join(dir, p)).isFile());

describe('pm attachments download writes only inside --dir', () => {
  it('refuses a uuid that is a path, whatever the name (.., ., empty), and writes nothing anywhere', async () => {
    for (const [uuid, name] of [
      ['abcdef12/../../escaped', '..'],
      ['abcdef12/../../escaped', '.'],
      ['abcdef12/../../escaped', ''],
      ['abcdef12\\..\\..\\escaped', '..'],
      ['abcdef12\u001b]0;owned\u0007', ''],
    ] as const) {
      const cwd = workDir();
      const h = await hostile(attachment({ uuid, name }));
      const r = await pmAt(h.url, cwd, ['attachments', 'download', 'abcdef12', '--dir', 'out']);
      const what = JSON.stringify([uuid, name]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain('not a uuid; pm uses nothing of it');
      expect(r.stdout, what).toBe('');
      expect(`${r.stdout}${r.stderr}`, what).not.toContain('\u001b');
      expect(filesUnder(cwd), what).toEqual([]);
      // Nothing was asked of the server with it.
      expect(
        h.requests.filter((q) => !q.startsWith('GET /attachments?')),
        what,
      ).toEqual([]);
    }
  });

  it('refuses a record whose own uuid is a path, even for a whole uuid typed', async () => {
    const cwd = workDir();
    const h = await hostile(attachment({ uuid: `${UUID}/../../../escaped`, name: '..' }));
    const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--dir', 'out']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a uuid');
    expect(filesUnder(cwd)).toEqual([]);
    expect(h.requests.some((q) => q.endsWith('/download'))).toBe(false);
  });

  it('with --clobber, overwrites nothing outside --dir', async () => {
    const cwd = workDir();
    writeFileSync(join(cwd, 'escaped'), 'mine');
    const h = await hostile(attachment({ uuid: 'abcdef12/../../escaped', name: '..' }));
    const r = await pmAt(h.url, cwd, ['attachments', 'download', 'abcdef12', '--dir', 'out', '--clobber']);
    expect(r.code).toBe(1);
    expect(readFileSync(join(cwd, 'escaped'), 'utf8')).toBe('mine');
    expect(filesUnder(join(cwd, 'out'))).toEqual([]);
  });

  it('saves a name that is a path (a/../../x, ..\\x), ., .. or empty as a name inside --dir', async () => {
    for (const [name, saved] of [
      ['a/../../x', 'x'],
      ['..\\..\\y', 'y'],
      ['..', UUID],
      ['.', UUID],
      ['', UUID],
    ] as const) {
      const cwd = workDir();
      const h = await hostile(attachment({ name }));
      const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--dir', 'out']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`${join(cwd, 'out', saved)}\n`);
      expect(filesUnder(cwd), name).toEqual([join('out', saved)]);
      expect(readFileSync(join(cwd, 'out', saved), 'utf8')).toBe(BYTES);
    }
  });

  it('cleans control and bidi characters out of a name, on disk and in what it prints', async () => {
    const cwd = workDir();
    const h = await hostile(attachment({ name: 'invoice\u202etxt.exe\u001b[2J\u009b31m\u2066' }));
    const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--dir', 'out'], true);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(cwd, 'out'))).toEqual(['invoicetxt.exe[2J31m']);
    for (const text of [r.stdout, r.stderr]) expect(text).not.toMatch(/[\u001b\u009b\u202e\u2066]/);
    expect(r.stderr).toContain('Downloaded invoicetxt.exe[2J31m (25 bytes, SHA-256 checked)');
  });

  it('shortens a name the file system would refuse (ENAMETOOLONG) to 255 bytes, its extension kept', async () => {
    for (const [name, saved] of [
      [`${'a'.repeat(300)}.pdf`, `${'a'.repeat(251)}.pdf`],
      // Two bytes a character: cut between characters, never inside one.
      [`${'é'.repeat(200)}.pdf`, `${'é'.repeat(125)}.pdf`],
    ] as const) {
      const cwd = workDir();
      const h = await hostile(attachment({ name }));
      const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--dir', 'out']);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(join(cwd, 'out'))).toEqual([saved]);
      expect(Buffer.byteLength(saved)).toBeLessThanOrEqual(255);
      expect(readFileSync(join(cwd, 'out', saved), 'utf8')).toBe(BYTES);
    }
  });
});

describe('a download longer than its record', () => {
  it('stops at the first byte past the size the record says: nothing written, no part file', async () => {
    const total = 64 * 1024 * 1024;
    const cwd = workDir();
    const h = await hostile(attachment({}), (res, h) => {
      // No Content-Length: the body just goes on, as fast as the client takes it.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const more = () => {
        while (h.sent < total && !res.destroyed) {
          h.sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--dir', 'out']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toContain(
      'error: the download of lease.txt was stopped: the answer has more than the 25 bytes expected (its record says 25 bytes): nothing was written.\n',
    );
    expect(filesUnder(cwd)).toEqual([]);
    // It stopped reading: the server could hand its socket a few buffers' worth, not the 64 MiB.
    expect(h.sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('is not read at all when its Content-Length says more', async () => {
    const cwd = workDir();
    const h = await hostile(attachment({}), (res, h) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1 << 30) });
      h.sent = 1;
      res.write('x'.repeat(1000));
    });
    const r = await pmAt(h.url, cwd, ['attachments', 'download', UUID, '--to', 'out/lease.txt']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the download of lease.txt was stopped: the answer says it has 1073741824 bytes, more than the 25 expected (its record says 25 bytes): nothing was written.',
    );
    expect(filesUnder(cwd)).toEqual([]);
  });
});

describe('pm attachments upload prints what the server answered only as what it claims to be', () => {
  it('a uuid with escape sequences in it is refused, never printed raw', async () => {
    const cwd = workDir();
    writeFileSync(join(cwd, 'lease.txt'), BYTES);
    const h = await hostile(
      attachment({}),
      undefined,
      attachment({ uuid: '\u001b]0;owned\u0007\u001b[2J\u009b31m', name: 'lease\u001b[5m.txt' }),
    );
    const r = await pmAt(h.url, cwd, ['attachments', 'upload', 'lease.txt', '--property', UUID], true);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a uuid');
    for (const text of [r.stdout, r.stderr]) expect(text).not.toMatch(/[\u0007\u001b\u009b]/);
  });

  it('a name and size with escape sequences: shown with them made harmless, in text and in --json', async () => {
    const cwd = workDir();
    writeFileSync(join(cwd, 'lease.txt'), BYTES);
    const h = await hostile(
      attachment({}),
      undefined,
      attachment({ name: 'lease\u001b[5m\u009b31m\u202e.txt', size: '25\u001b[2J' }),
    );
    for (const json of [false, true]) {
      const args = ['attachments', 'upload', 'lease.txt', '--property', UUID, ...(json ? ['--json'] : [])];
      const r = await pmAt(h.url, cwd, args, true);
      expect(r.code, r.stderr).toBe(0);
      for (const text of [r.stdout, r.stderr]) expect(text).not.toMatch(/[\u001b\u009b\u202e]/);
      if (json) expect(JSON.parse(r.stdout).name).toBe('lease\u001b[5m\u009b31m\u202e.txt');
      else expect(r.stdout).toBe(`${UUID}\n`);
    }
  });
});

describe('pm export and pm import against the real server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** An account with a property and one attachment, exported into `<cwd>/out`. */
  async function exported(): Promise<{ cwd: string; acct: Account; file: string }> {
    const acct = await server.newAccount();
    const cwd = mkdtempSync(join(root, 'export-'));
    const property = (await acct.api('POST', '/properties', { address: '1 High Street', postcode: 'LS1 1AA' })).body
      .data.uuid as string;
    writeFileSync(join(cwd, 'lease.txt'), BYTES);
    const env = { PM_BASE_URL: server.url, PM_TOKEN: acct.token };
    const up = await runPm(['attachments', 'upload', 'lease.txt', '--property', property], { cwd, env });
    expect(up.code, up.stderr).toBe(0);
    const out = await runPm(['export', '--dir', 'out'], { cwd, env });
    expect(out.code, out.stderr).toBe(0);
    return { cwd, acct, file: join(cwd, 'out', 'attachments', up.stdout.trim()) };
  }

  it('export writes every file 0600 and every folder it makes 0700', async () => {
    const { cwd, file } = await exported();
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(join(cwd, 'out'))).toBe(0o700);
    expect(mode(join(cwd, 'out', 'attachments'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(mode(join(cwd, 'out', 'properties.ndjson'))).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(BYTES);
  });

  it('import sends the file it checked: a link swapped in for it while it runs is never read', async () => {
    const { cwd, file } = await exported();
    const secret = join(cwd, 'secret');
    writeFileSync(secret, 'the contents of ~/.ssh/id_ed25519');
    const to = await server.newAccount();
    // In front of the real server: the first upload is answered 429 (to be sent again), and
    // meanwhile the exported file is swapped for a link to the secret.
    const bodies: Buffer[] = [];
    let swapped = false;
    const front = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      bodies.push(body);
      if (req.method === 'POST' && /\/attachments(\?|$)/.test(req.url ?? '') && !swapped) {
        swapped = true;
        rmSync(file);
        symlinkSync(secret, file);
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ message: 'Too many requests.' }));
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
      const up = await fetch(server.url + req.url, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length ? { body } : {}),
      });
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await up.arrayBuffer()));
    });
    await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
    onTestFinished(async () => {
      front.closeAllConnections();
      await new Promise((done) => front.close(done));
    });
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const r = await runPm(['import', '--dir', 'out'], { cwd, env: { PM_BASE_URL: url, PM_TOKEN: to.token } });
    expect(swapped).toBe(true);
    expect(bodies.some((b) => b.includes('id_ed25519'))).toBe(false);
    expect(r.code, r.stderr).toBe(0);
    const [stored] = (await to.api('GET', '/attachments')).body.data as Rec[];
    expect(stored?.sha256).toBe(sha256(BYTES));
  });

  it('import refuses an exported file that is a link, naming it', async () => {
    const { cwd, file } = await exported();
    writeFileSync(join(cwd, 'secret'), 'private');
    rmSync(file);
    symlinkSync(join(cwd, 'secret'), file);
    const to = await server.newAccount();
    const r = await runPm(['import', '--dir', 'out'], { cwd, env: { PM_BASE_URL: server.url, PM_TOKEN: to.token } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is not a file (a link is never followed)`);
    expect((await to.api('GET', '/attachments')).body.data).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});
