/**
 * Several processes on one data file. The children run the built server (compiled here from
 * src/server into a temporary directory, so that the test never depends on a stale dist/ or on
 * the rest of the project compiling), each starting its own server on the SAME file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/server/index.js';
import { migrations } from '../../src/server/schema.js';
import { type BuiltServer, buildServer } from '../helpers/build-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const _ROOT = resolve(import.meta.dirname, '../..');
let built: BuiltServer;
let serverModule: string;

beforeAll(() => {
  built = buildServer();
  serverModule = built.module;
}, 60_000);
afterAll(() => built.remove());

/**
 * Children say "ready" on stdout, wait for stdin, do their work and print one JSON line of
 * results, so that all of them are released at the same moment.
 */
function writerScript(): string {
  return `
const [moduleUrl, dataFile, token, prefix, count] = process.argv.slice(2);
const { startServer } = await import(moduleUrl);
const server = await startServer({ dataFile, port: 0 });
process.stdout.write('ready\\n');
await new Promise((r) => process.stdin.once('data', r));
const results = [];
let next = 0;
async function worker() {
  while (next < Number(count)) {
    const i = next++;
    const res = await fetch(server.url + '/reminders', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
      body: JSON.stringify({ title: prefix + '-' + i }),
    });
    const body = await res.json();
    results.push({ status: res.status, uuid: body.data?.uuid, title: body.data?.title });
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
await server.close();
process.stdout.write(JSON.stringify(results) + '\\n');
`;
}

function bootstrapScript(): string {
  return `
const [moduleUrl, dataFile] = process.argv.slice(2);
const { openStore, bootstrap } = await import(moduleUrl);
process.stdout.write('ready\\n');
await new Promise((r) => process.stdin.once('data', r));
const store = openStore(dataFile);
const token = bootstrap(store);
store.close();
process.stdout.write(JSON.stringify({ token: token ?? null }) + '\\n');
`;
}

interface Child {
  readonly proc: ChildProcess;
  readonly ready: Promise<void>;
  readonly done: Promise<string>;
}

function startChild(dir: string, name: string, script: string, args: string[]): Child {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, script);
  const proc = spawn(process.execPath, [file, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => {
    onReady = r;
  });
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const done = new Promise<string>((res, rej) => {
    proc.on('exit', (code) => {
      if (code === 0) res(out.slice('ready\n'.length).trim());
      else rej(new Error(`${name} exited with ${code}: ${err}`));
    });
  });
  // A child that fails before it is ready must not leave the test waiting.
  done.catch(() => onReady());
  return { proc, ready, done };
}

async function runTogether(children: Child[]): Promise<string[]> {
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.proc.stdin?.end('go\n');
  return Promise.all(children.map((c) => c.done));
}

describe('two processes writing one data file at once', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('200 creates from two servers: exactly 200 records, none lost, none twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-children-'));
    try {
      const children = ['a', 'b'].map((p) =>
        startChild(dir, `writer-${p}`, writerScript(), [serverModule, server.dataFile, server.token, p, '100']),
      );
      const outputs = await runTogether(children);
      const results = outputs.flatMap((o) => JSON.parse(o) as { status: number; uuid: string; title: string }[]);
      expect(results).toHaveLength(200);
      expect(results.filter((r) => r.status !== 201)).toEqual([]);

      const listed: { uuid: string; title: string }[] = [];
      for (const page of [1, 2, 3])
        listed.push(...(await server.api('GET', `/reminders?per_page=100&page=${page}`)).body.data);
      expect(listed).toHaveLength(200);
      expect(new Set(listed.map((r) => r.uuid)).size).toBe(200);
      const titles = listed.map((r) => r.title).sort();
      const expected = ['a', 'b'].flatMap((p) => Array.from({ length: 100 }, (_, i) => `${p}-${i}`)).sort();
      expect(titles).toEqual(expected);
      expect(new Set(listed.map((r) => r.uuid))).toEqual(new Set(results.map((r) => r.uuid)));
      const total = (await server.api('GET', '/reminders')).body.meta.pagination.total;
      expect(total).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('two processes opening a new data file at once', () => {
  it('migrate it once and create exactly one account and one token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-children-'));
    try {
      const dataFile = join(dir, 'data', 'pm.db');
      mkdirSync(join(dir, 'data'));
      const children = [1, 2, 3].map((n) => startChild(dir, `boot-${n}`, bootstrapScript(), [serverModule, dataFile]));
      const tokens = (await runTogether(children)).map((o) => (JSON.parse(o) as { token: string | null }).token);
      expect(tokens.filter((t) => t !== null)).toHaveLength(1);
      const store = openStore(dataFile);
      try {
        expect(store.db.prepare('SELECT COUNT(*) AS n FROM accounts').get()).toEqual({ n: 1 });
        expect(store.listTokens()).toHaveLength(1);
        expect(store.db.pragma('user_version', { simple: true })).toBe(migrations().length);
        expect(store.authenticate(tokens.find((t) => t !== null) as string)).toBeDefined();
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
