/**
 * Black-box runs of the built bin/pm: exit codes, a shell pipeline, colour when piped, and the
 * embedded default with an empty HOME.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { BIN, pmBin, tempHome } from '../helpers/cli.js';

const exec = promisify(execFile);
/** Node 22.1 and later keep the compile cache themselves; bin/pm keeps its own only before that. */
const NODE_HAS_COMPILE_CACHE = 'enableCompileCache' in Module;
/** util-linux's script(1), to run pm on a terminal of a chosen width. */
const HAS_SCRIPT = (() => {
  try {
    return statSync('/usr/bin/script').isFile();
  } catch {
    return false;
  }
})();

function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra };
}

describe('bin/pm', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    env = cleanEnv(tempHome(), { PM_BASE_URL: server.url, PM_TOKEN: (await server.newAccount()).token });
  });
  afterAll(async () => {
    await server.close();
  });

  it('prints its version and help, exit 0', async () => {
    const v = await pmBin(['--version'], env);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const h = await pmBin(['--help'], env);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Exit codes');
    expect(h.stdout).toContain('embedded default');
  });

  it('prints into a pipe the same root help the full CLI renders, for --help, -h and help', async () => {
    // --no-color makes bin/pm take its full path: commander renders the help there and then.
    const full = await pmBin(['--no-color', '--help'], env);
    expect(full.code).toBe(0);
    expect(full.stdout).toMatch(/^Usage: pm \[options\] \[command\]\n/);
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await pmBin(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(r.stdout).toBe(full.stdout);
    }
  });

  it.skipIf(!HAS_SCRIPT)('wraps the root help to the width of a terminal', async () => {
    const atWidth = async (cols: number) => {
      const cmd = `stty cols ${cols}; "${process.execPath}" "${BIN}" --help`;
      const { stdout } = await exec('script', ['-qec', cmd, '/dev/null'], { env });
      return stdout.replace(/\r/g, '');
    };
    const wide = await atWidth(150);
    const piped = (await pmBin(['--help'], env)).stdout;
    // At 80 columns the --base-url description wraps onto a second line; at 150 it does not.
    const oneLine = /--base-url <url> +the API base URL \(default: PM_BASE_URL, config, else the embedded default\)\n/;
    expect(piped).not.toMatch(oneLine);
    expect(wide).toMatch(oneLine);
    expect(wide.split('\n').length).toBeLessThan(piped.split('\n').length);
  });

  it.skipIf(NODE_HAS_COMPILE_CACHE)(
    'keeps a V8 code cache of the bundle, and runs alike with a bad or no cache',
    async () => {
      const cacheHome = join(tempHome(), 'cache');
      const env2 = { ...env, XDG_CACHE_HOME: cacheHome };
      const dir = join(cacheHome, 'pm', 'v8');
      const list = async (e: Record<string, string>) => {
        const r = await pmBin(['reminders', 'list', '--json', 'title'], e);
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
        return r.stdout;
      };
      await pmBin(['reminders', 'create', '--title', 'cached', '--due-at', '2027-01-01'], env);
      const first = await list(env2);
      expect(JSON.parse(first)).toContainEqual({ title: 'cached' });
      // One for the bundle, and one for the chunk it read to send the request (undici).
      const files = readdirSync(dir).sort();
      expect(files).toHaveLength(2);
      expect(files[1]).toBe(`${(files[0] as string).replace(/\.cache$/, '')}~undici.cache`);
      const cache = join(dir, files[0] as string);
      expect(statSync(cache).mode & 0o777).toBe(0o600);
      const made = readFileSync(cache);
      expect(made.length).toBeGreaterThan(10_000);
      expect(await list(env2)).toBe(first);
      // Made as the run ends, the cache holds what the run compiled: a list's is larger than that of
      // a run that stops at its first flag.
      const early = join(tempHome(), 'cache');
      expect((await pmBin(['--no-such-flag'], { ...env, XDG_CACHE_HOME: early })).code).toBe(2);
      const earlyDir = join(early, 'pm', 'v8');
      const earlyCache = readFileSync(join(earlyDir, readdirSync(earlyDir)[0] as string));
      const chunk = readFileSync(join(dir, files[1] as string));
      expect(made.length).toBeGreaterThan(earlyCache.length);
      expect(made.length + chunk.length).toBeGreaterThan(earlyCache.length * 1.5);
      // A damaged cache is refused by V8: the run compiles afresh, answers the same, and rewrites it.
      writeFileSync(cache, Buffer.alloc(made.length, 7));
      expect(await list(env2)).toBe(first);
      expect(readFileSync(cache).equals(Buffer.alloc(made.length, 7))).toBe(false);
      expect(await list(env2)).toBe(first);
      // Then it is kept: a run through the HTTP client (which changes a V8 flag) does not make it again.
      const kept = readFileSync(cache);
      expect(await list(env2)).toBe(first);
      expect(readFileSync(cache).equals(kept)).toBe(true);
      // No cache where it cannot be written (the cache home is a file), nor when it is turned off.
      const blocked = join(tempHome(), 'not-a-dir');
      writeFileSync(blocked, '');
      expect(await list({ ...env, XDG_CACHE_HOME: blocked })).toBe(first);
      const off = join(tempHome(), 'cache');
      expect(await list({ ...env, XDG_CACHE_HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(first);
      expect(existsSync(off)).toBe(false);
    },
  );

  it('exits 2 on a usage error, 3 on not found, 4 on a refused token', async () => {
    expect((await pmBin(['properties', 'list', '--bedrooms', 'many'], env)).code).toBe(2);
    expect((await pmBin(['properties', 'get', 'nope'], env)).code).toBe(2);
    expect((await pmBin(['properties', 'get', '0f0e0d0c-0b0a-4909-8807-060504030201'], env)).code).toBe(3);
    expect((await pmBin(['properties', 'list'], { ...env, PM_TOKEN: 'pm_nope' })).code).toBe(4);
  });

  it('files a property by status label on the embedded default: set, filter, show, refuse', async () => {
    const home = cleanEnv(tempHome());
    const pm = async (...args: string[]) => pmBin(args, home);
    expect((await pm('statuses', 'create', '--label', 'For Let', '--type', 'property', '-q')).code).toBe(0);
    expect((await pm('statuses', 'create', '--label', 'Active', '--type', 'contact', '-q')).code).toBe(0);
    const own = await pm('statuses', 'create', '--label', 'Not for let (owner occupied)', '--type', 'property', '-q');
    const p = (await pm('properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA', '-q')).stdout.trim();
    await pm(
      'properties',
      'create',
      '--address',
      '2 Mill Lane',
      '--postcode',
      'LS2 7EW',
      '--status',
      own.stdout.trim(),
    );
    const set = await pm('properties', 'update', p, '--status', 'for let', '-q');
    expect({ code: set.code, stdout: set.stdout, stderr: set.stderr }).toEqual({
      code: 0,
      stdout: `${p}\n`,
      stderr: '',
    });
    const listed = await pm('properties', 'list', '--status', 'For Let');
    expect(listed.stdout).toBe(`${p}\t1 High St\t\tLS1 1AA\t\t0\t0\t0\tFor Let\n`);
    expect((await pm('properties', 'get', p, '--json', 'status')).stdout).toMatch(
      /^\{"status":\{"data":\{"uuid":"[0-9a-f-]{36}","label":"For Let"/,
    );
    const wrong = await pm('properties', 'update', p, '--status', 'Active');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('error: --status "Active" is a Contact status, not a Property status.\n');
    const typo = await pm('properties', 'list', '--status', 'For Lte');
    expect(typo).toMatchObject({ code: 1, stdout: '' });
    expect(typo.stderr).toContain('Did you mean "For Let"?');
    const both = await pm('properties', 'update', p, '--status', 'For Let', '--no-status');
    expect({ code: both.code, stderr: both.stderr.split('\n')[0] }).toEqual({
      code: 2,
      stderr: 'error: --status and --no-status cannot be used together.',
    });
  });

  it('feeds -q output through a shell pipeline', async () => {
    const { stdout } = await exec(
      'sh',
      [
        '-c',
        `u=$("${process.execPath}" "${BIN}" reminders create --title piped -q) && "${process.execPath}" "${BIN}" reminders get "$u" --json title`,
      ],
      { env },
    );
    expect(JSON.parse(stdout)).toEqual({ title: 'piped' });
  });

  it('stops quietly when the reader goes away (| head), and exits 2 for a group without its command', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
    const group = await pmBin(['properties'], env);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('list');
  });

  it('writes no colour and no box drawing when piped', async () => {
    await pmBin(['properties', 'create', '--address', '1 Pipe St', '--postcode', 'P1 1PP'], env);
    const r = await pmBin(['properties', 'list'], { ...env, FORCE_COLOR: '' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 Pipe St');
    expect(r.stdout).not.toMatch(/\u001b\[|[┌│─]/);
  });
});

describe('the embedded default', () => {
  it('creates and lists records with nothing configured, keeping them in the data directory', async () => {
    const home = tempHome();
    const env = cleanEnv(home);
    const created = await pmBin(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA', '-q'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const listed = await pmBin(['properties', 'list', '--json', 'uuid,address'], env);
    expect(JSON.parse(listed.stdout)).toEqual([{ uuid: created.stdout.trim(), address: '1 High St' }]);
    const dataFile = join(home, '.local', 'share', 'pm', 'pm.db');
    expect(statSync(dataFile).isFile()).toBe(true);
    expect(statSync(`${dataFile}.token`).mode & 0o777).toBe(0o600);
    const status = await pmBin(['auth', 'status'], env);
    expect(status.stdout).toContain('embedded default');
    expect(status.stdout).toContain(dataFile);
  });

  it('follows XDG_DATA_HOME', async () => {
    const home = tempHome();
    const xdg = join(home, 'xdg');
    const env = cleanEnv(home, { XDG_DATA_HOME: xdg });
    expect((await pmBin(['reminders', 'create', '--title', 'x', '-q'], env)).code).toBe(0);
    expect(statSync(join(xdg, 'pm', 'pm.db')).isFile()).toBe(true);
  });
});

describe('the first run, by several at once', () => {
  it('8 pm processes started together on an empty data folder all succeed, with one account and one token', async () => {
    for (let round = 0; round < 3; round++) {
      const home = tempHome();
      const env = { PATH: process.env.PATH ?? '', HOME: home };
      const runs = await Promise.all(Array.from({ length: 8 }, () => pmBin(['properties', 'list', '--json'], env)));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const tokens = await pmBin(['serve', 'tokens', 'list', '--json'], env);
      expect(JSON.parse(tokens.stdout)).toHaveLength(1);
    }
  }, 60_000);
});

describe('configuration, black-box', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer(), startTestServer()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('takes flags over the environment over the project config over the user config', async () => {
    const home = tempHome();
    const project = join(home, 'project');
    mkdirSync(join(home, '.config', 'pm'), { recursive: true });
    mkdirSync(project);
    const ta = (await a.newAccount()).token;
    const tb = (await b.newAccount()).token;
    writeFileSync(
      join(home, '.config', 'pm', 'config.json'),
      JSON.stringify({ profiles: { default: { base_url: a.url, token: ta }, other: { base_url: b.url, token: tb } } }),
      { mode: 0o600 },
    );
    const title = (env: Record<string, string>, args: string[] = [], cwd = home) => {
      return pmBin([...args, 'reminders', 'create', '--title', 't', '-q'], cleanEnv(home, env), { cwd });
    };
    const countA = () => a.sqlite.db.prepare('SELECT COUNT(*) AS n FROM reminders').get() as { n: number };
    const countB = () => b.sqlite.db.prepare('SELECT COUNT(*) AS n FROM reminders').get() as { n: number };

    // The user config alone: server a.
    expect((await title({})).code).toBe(0);
    expect(countA().n).toBe(1);
    // A named profile of the user config: server b.
    expect((await title({}, ['--profile', 'other'])).code).toBe(0);
    expect(countB().n).toBe(1);
    expect((await title({ PM_PROFILE: 'other' })).code).toBe(0);
    expect(countB().n).toBe(2);
    // A project config beats the user config (its server, with the token from the environment).
    writeFileSync(join(project, '.pmrc.json'), JSON.stringify({ base_url: b.url }));
    expect((await title({ PM_TOKEN: tb }, [], project)).code).toBe(0);
    expect(countB().n).toBe(3);
    // The environment beats the project config; a flag beats the environment.
    expect((await title({ PM_BASE_URL: a.url, PM_TOKEN: ta }, [], project)).code).toBe(0);
    expect(countA().n).toBe(2);
    const flag = await title({ PM_BASE_URL: a.url, PM_TOKEN: tb }, ['--base-url', b.url], project);
    expect(flag.code).toBe(0);
    expect(countB().n).toBe(4);
    // An unknown profile is a usage error.
    const unknown = await title({}, ['--profile', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nope');
  });

  it('pages through --all across several pages in one JSON document', async () => {
    const token = (await a.newAccount()).token;
    const env = cleanEnv(tempHome(), { PM_BASE_URL: a.url, PM_TOKEN: token });
    for (let i = 0; i < 7; i++) await pmBin(['reminders', 'create', '--title', `p${i}`, '-q'], env);
    const r = await pmBin(['reminders', 'list', '--all', '--per-page', '2', '--json', 'title'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(Array.from({ length: 7 }, (_, i) => ({ title: `p${i}` })));
  });
});
