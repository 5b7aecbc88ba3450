/**
 * The package as users get it: `npm pack` from the repository's files alone (no dist/, as a fresh
 * clone has: its prepack step builds), installed from the tarball into a fresh prefix, with and
 * without the optional dependencies (the database drivers), and the installed `pm` run. Slow (an
 * install, which builds better-sqlite3 where no prebuilt binary can be downloaded): its own
 * vitest project, `package`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCollect } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NPM_ENV = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

/** The packages the bundle holds: dev dependencies, never installed with pm. */
const BUNDLED = ['chalk', 'cli-table3', 'commander', 'csv-parse', 'csv-stringify', 'luxon', 'undici'];

let dir: string;
let tarball: string;
let files: string[];

/** Installs the tarball into a fresh prefix (a local install: npm ignores --omit in a global one from a file). */
function install(name: string, args: readonly string[] = []): string {
  const prefix = join(dir, name);
  mkdirSync(prefix);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', ...args, tarball], {
    cwd: prefix,
    env: NPM_ENV,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 900_000,
  });
  return prefix;
}

/** The installed pm, with a home of its own and nothing configured. */
const pm = (prefix: string, args: readonly string[], extra: Record<string, string> = {}) =>
  spawnCollect(join(prefix, 'node_modules', '.bin', 'pm'), args, {
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: join(prefix, 'home'),
      XDG_DATA_HOME: join(prefix, 'data'),
      ...extra,
    },
    cwd: prefix,
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pm-package-'));
  // The repository's files as a clone has them (what git tracks), with this checkout's node_modules.
  const clone = join(dir, 'clone');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of tracked) {
    try {
      if (!statSync(join(ROOT, f)).isFile()) continue;
    } catch {
      continue; // deleted in the working tree
    }
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(ROOT, f), join(clone, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: clone,
    env: NPM_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(dir, (packed as { filename: string }).filename);
  files = (packed as { files: { path: string }[] }).files.map((f) => f.path).sort();
}, 400_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('holds what runs, built by its prepack step: the bundles, the root help, bin, README, docs, licence', () => {
    for (const f of [
      'bin/pm',
      'bin/package.json',
      'dist/bundle/pm.cjs',
      'dist/bundle/reader-worker.cjs',
      'dist/bundle/help.txt',
      'README.md',
      'LICENSE',
      'docs/api.md',
      'package.json',
    ])
      expect(files).toContain(f);
    // No source, tests, source maps or unbundled tree.
    expect(files.filter((f) => /^(src|test|bench)\/|\.map$|\.ts$|^dist\/(?!bundle\/)/.test(f))).toEqual([]);
    expect(files.length).toBeLessThan(80);
    expect(statSync(tarball).size).toBeLessThan(1_000_000);
  });
});

describe('installed without the optional dependencies', () => {
  let prefix: string;
  let server: TestServer;
  beforeAll(async () => {
    prefix = install('without', ['--omit=optional']);
    server = await startTestServer();
  }, 900_000);
  afterAll(async () => {
    await server?.close();
  });

  it('has neither driver, nor any package the bundle holds', () => {
    const installed = readdirSync(join(prefix, 'node_modules'));
    expect(installed).toContain('pm-cli');
    for (const p of ['better-sqlite3', 'pg', ...BUNDLED]) expect(installed).not.toContain(p);
  });

  it('prints its version, and talks to a server', async () => {
    expect((await pm(prefix, ['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const env = { PM_BASE_URL: server.url, PM_TOKEN: server.token };
    const made = await pm(
      prefix,
      ['properties', 'create', '--address', '9 Mill Lane', '--postcode', 'LS2 2BB', '-q'],
      env,
    );
    expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: '' });
    const listed = await pm(prefix, ['properties', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ uuid: made.stdout.trim() }));
  });

  it('says in two lines, without a stack trace, what the embedded default is missing and how to get it', async () => {
    const r = await pm(prefix, ['properties', 'list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "error: the embedded default needs the SQLite driver (better-sqlite3), which is not installed: pm was installed without its optional dependencies, or the driver's build failed.\n" +
        'Install pm with them (npm ci in a clone; npm install of its package without --omit=optional), or name a server with --base-url or PM_BASE_URL.\n',
    );
  });
});

describe('installed with them', () => {
  let prefix: string;
  beforeAll(() => {
    prefix = install('with');
  }, 900_000);

  it('runs the embedded default from a fresh home', async () => {
    const made = await pm(prefix, [
      'properties',
      'create',
      '--address',
      '1 High St',
      '--postcode',
      'LS1 1AA',
      '--city',
      'Leeds',
      '-q',
    ]);
    expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: '' });
    const listed = await pm(prefix, ['properties', 'list', '--city', 'leeds', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ uuid: made.stdout.trim(), city: 'Leeds' })]);
  });

  it('serves a data file, its reader threads answering a filtered list', async () => {
    const data = join(prefix, 'served.db');
    const child = (await import('node:child_process')).spawn(
      join(prefix, 'node_modules', '.bin', 'pm'),
      ['serve', '--port', '0', '--data', data, '--readers', '1'],
      {
        env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(prefix, 'home') },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let log = '';
        child.stderr.on('data', (c) => {
          log += c;
          const m = /listening on (http:\/\/\S+)/.exec(log);
          if (m) resolve(m[1] as string);
        });
        child.on('exit', (code) => reject(new Error(`pm serve exited ${code}: ${log}`)));
      });
      const env = {
        PM_BASE_URL: url,
        PM_TOKEN: (await import('node:fs')).readFileSync(`${data}.token`, 'utf8').trim(),
      };
      expect(
        (
          await pm(
            prefix,
            ['properties', 'create', '--address', '2 Mill Lane', '--postcode', 'YO1 1AA', '--city', 'York'],
            env,
          )
        ).code,
      ).toBe(0);
      const listed = await pm(prefix, ['properties', 'list', '--city', 'york', '--json'], env);
      expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ address: '2 Mill Lane' })]);
    } finally {
      child.kill();
    }
  });
});
