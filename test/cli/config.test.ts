/**
 * resolveTarget and the user-config helpers, against real files in a temporary home directory:
 * home/ holds the user config (via XDG_CONFIG_HOME) and the project (home/proj/sub is the cwd).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  normalizeBaseUrl,
  readUserConfig,
  redact,
  resolveTarget,
  searchDirs,
  type Target,
  writeUserConfig,
} from '../../src/cli/config.js';
import type { Deps, Env } from '../../src/cli/context.js';
import { CliError } from '../../src/cli/errors.js';

let root: string;
let home: string;
let proj: string;
let cwd: string;
let xdg: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pm-config-'));
  home = join(root, 'home');
  proj = join(home, 'proj');
  cwd = join(proj, 'sub');
  xdg = join(root, 'xdg');
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function deps(env: Env = {}, at: string = cwd): Deps {
  const sink = { write: () => true };
  return {
    io: { stdout: sink, stderr: sink, stdin: (async function* () {})() },
    env: { XDG_CONFIG_HOME: xdg, ...env },
    cwd: at,
    home,
    now: () => Date.parse('2026-01-15T12:00:00Z'),
  };
}

const userFile = () => join(xdg, 'pm', 'config.json');

function writeUser(cfg: unknown, mode = 0o600): string {
  mkdirSync(join(xdg, 'pm'), { recursive: true });
  writeFileSync(userFile(), typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
  chmodSync(userFile(), mode);
  return userFile();
}

function writeProject(name: string, content: unknown, dir = proj, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(file, mode);
  return file;
}

async function failure(p: Promise<unknown>): Promise<CliError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
}

describe('nothing configured: the embedded default', () => {
  it('uses the default data file, with the token beside it', async () => {
    const t = await resolveTarget({}, deps());
    expect(t).toMatchObject({
      baseUrl: undefined,
      token: undefined,
      profile: 'default',
      sources: { baseUrl: 'embedded', token: 'embedded', profile: 'none' },
      projectConfigPath: undefined,
      userConfigPath: userFile(),
      embedded: { dataFile: join(home, '.local', 'share', 'pm', 'pm.db') },
      warnings: [],
    });
    expect(t.timeout).toBeUndefined();
  });

  it('follows XDG_DATA_HOME, and PM_DATA_FILE over it (relative to cwd)', async () => {
    const xdgData = join(root, 'data');
    expect((await resolveTarget({}, deps({ XDG_DATA_HOME: xdgData }))).embedded).toEqual({
      dataFile: join(xdgData, 'pm', 'pm.db'),
    });
    expect((await resolveTarget({}, deps({ XDG_DATA_HOME: xdgData, PM_DATA_FILE: 'team.db' }))).embedded).toEqual({
      dataFile: join(cwd, 'team.db'),
    });
  });

  it('ignores PM_TOKEN without a base URL, and says so', async () => {
    const t = await resolveTarget({}, deps({ PM_TOKEN: 'pm_envtokenenvtokenenvtoken' }));
    expect(t.token).toBeUndefined();
    expect(t.sources.token).toBe('embedded');
    expect(t.warnings.join('\n')).toMatch(/PM_TOKEN is ignored/);
    expect(t.warnings.join('\n')).not.toContain('pm_envtoken');
  });

  it('treats empty environment variables as unset', async () => {
    const t = await resolveTarget({}, deps({ PM_BASE_URL: '', PM_PROFILE: ' ', PM_TOKEN: '' }));
    expect(t.sources).toMatchObject({ baseUrl: 'embedded', profile: 'none' });
    expect(t.warnings).toEqual([]);
  });
});

describe('precedence: flag > env > project > user > embedded', () => {
  const URLS = {
    flag: 'https://flag.example',
    env: 'https://env.example',
    project: 'https://project.example',
    user: 'https://user.example',
  } as const;
  type Layer = keyof typeof URLS;
  const layers: Layer[] = ['flag', 'env', 'project', 'user'];
  // Every subset of the four sources.
  const cases = Array.from({ length: 16 }, (_, mask) => layers.filter((_, i) => mask & (1 << i)));

  it.each(cases.map((c) => [c.join('+') || '(none)', c] as const))('%s', async (_name, present) => {
    if (present.includes('project')) writeProject('.pmrc.json', { base_url: URLS.project });
    if (present.includes('user')) writeUser({ base_url: URLS.user });
    const t = await resolveTarget(
      present.includes('flag') ? { baseUrl: URLS.flag } : {},
      deps(present.includes('env') ? { PM_BASE_URL: URLS.env } : {}),
    );
    const winner = layers.find((l) => present.includes(l));
    expect(t.baseUrl).toBe(winner ? URLS[winner] : undefined);
    expect(t.sources.baseUrl).toBe(winner ?? 'embedded');
    expect(t.embedded === undefined).toBe(winner !== undefined);
  });

  it('takes the token from PM_TOKEN over the config files', async () => {
    writeUser({ base_url: 'https://user.example', token: 'pm_usertokenusertokenuser' });
    const t = await resolveTarget({}, deps({ PM_TOKEN: 'pm_envtokenenvtokenenvtoken' }));
    expect(t).toMatchObject({ token: 'pm_envtokenenvtokenenvtoken', sources: { token: 'env' } });
  });

  it('takes the project token over the user token when both are for the same server', async () => {
    writeProject('.pmrc.json', { base_url: 'https://same.example/', token: 'pm_projtokenprojtokenproj' });
    writeUser({ base_url: 'https://same.example', token: 'pm_usertokenusertokenuser' });
    const t = await resolveTarget({}, deps());
    expect(t).toMatchObject({ baseUrl: 'https://same.example', token: 'pm_projtokenprojtokenproj' });
    expect(t.sources.token).toBe('project');
  });

  it('reports a base URL with no token as source "none"', async () => {
    writeUser({ base_url: 'https://user.example' });
    const t = await resolveTarget({}, deps());
    expect(t).toMatchObject({ token: undefined, sources: { baseUrl: 'user', token: 'none' }, embedded: undefined });
  });
});

describe('a token is only sent to the server of its own file', () => {
  it('does not send the user token to a base URL named by a project config', async () => {
    writeProject('.pmrc', { base_url: 'https://evil.example' });
    writeUser({ token: 'pm_usertokenusertokenuser' });
    const t = await resolveTarget({}, deps());
    expect(t).toMatchObject({ baseUrl: 'https://evil.example', token: undefined, sources: { token: 'none' } });
    expect(t.warnings.join('\n')).toMatch(/is not sent to https:\/\/evil\.example/);
    expect(t.warnings.join('\n')).not.toContain('pm_usertoken');
    // The key is named once: "token in user config …", never "the token in token in …".
    expect(t.warnings.join('\n')).toMatch(
      /^token in user config \S+ is not sent to https:\/\/evil\.example \(from project config /,
    );
  });

  it('does not send the user token to another server than its own', async () => {
    writeUser({ base_url: 'https://mine.example', token: 'pm_usertokenusertokenuser' });
    const t = await resolveTarget({ baseUrl: 'https://other.example' }, deps());
    expect(t.token).toBeUndefined();
    expect(t.warnings.join('\n')).toMatch(/is for https:\/\/mine\.example/);
  });

  it('sends a token with no base URL of its own to --base-url or PM_BASE_URL', async () => {
    writeUser({ token: 'pm_usertokenusertokenuser' });
    const t = await resolveTarget({}, deps({ PM_BASE_URL: 'http://127.0.0.1:8080/' }));
    expect(t).toMatchObject({ baseUrl: 'http://127.0.0.1:8080', token: 'pm_usertokenusertokenuser' });
    expect(t.sources.token).toBe('user');
  });

  it('refuses $import in a project file (it could pull in the user config)', async () => {
    writeUser({ base_url: 'https://mine.example', token: 'pm_usertokenusertokenuser' });
    const rel = join('..', '..', 'xdg', 'pm', 'config.json');
    const file = writeProject('.pmrc.json', { $import: rel, base_url: 'https://evil.example' });
    const err = await failure(resolveTarget({}, deps()));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(file);
    expect(err.message).toContain('$import');
  });
});

describe('profiles', () => {
  const user = {
    base_url: 'https://default.example',
    token: 'pm_defaulttokendefaulttoken',
    timeout: 20,
    profiles: {
      work: { base_url: 'https://work.example', token: 'pm_worktokenworktokenwork' },
      staging: { base_url: 'https://staging.example', timeout: 5 },
    },
  };

  it('uses the top-level settings for the profile "default"', async () => {
    writeUser(user);
    const t = await resolveTarget({}, deps());
    expect(t).toMatchObject({ profile: 'default', baseUrl: 'https://default.example', timeout: 20 });
    expect(t.token).toBe('pm_defaulttokendefaulttoken');
  });

  it('--profile > PM_PROFILE > project "profile" > user "default_profile"', async () => {
    writeUser({ ...user, default_profile: 'staging' });
    expect((await resolveTarget({}, deps())).sources.profile).toBe('user');
    expect((await resolveTarget({}, deps())).profile).toBe('staging');
    writeProject('.pmrc.yaml', 'profile: work\n');
    expect(await resolveTarget({}, deps())).toMatchObject({ profile: 'work', sources: { profile: 'project' } });
    expect(await resolveTarget({}, deps({ PM_PROFILE: 'default' }))).toMatchObject({
      profile: 'default',
      sources: { profile: 'env' },
    });
    expect(await resolveTarget({ profile: 'staging' }, deps({ PM_PROFILE: 'default' }))).toMatchObject({
      profile: 'staging',
      sources: { profile: 'flag' },
    });
  });

  it("warns when a user's default_profile sets aside a project's top-level base_url", async () => {
    writeUser({ ...user, default_profile: 'staging' });
    writeProject('.pmrc.json', { base_url: 'https://project.example' });
    const t = await resolveTarget({}, deps());
    expect(t.baseUrl).not.toBe('https://project.example');
    expect(t.warnings.join('\n')).toContain('is the "default" profile\'s, and the active profile is "staging"');
    // Chosen on purpose, or the project's own: no warning.
    expect((await resolveTarget({ profile: 'staging' }, deps())).warnings).toEqual([]);
    const d = await resolveTarget({ profile: 'default' }, deps());
    expect(d.baseUrl).toBe('https://project.example');
  });

  it("gives a profile its own base URL and token, never the default's", async () => {
    writeUser(user);
    const work = await resolveTarget({ profile: 'work' }, deps());
    expect(work).toMatchObject({ baseUrl: 'https://work.example', token: 'pm_worktokenworktokenwork', timeout: 20 });
    const staging = await resolveTarget({ profile: 'staging' }, deps());
    expect(staging).toMatchObject({ baseUrl: 'https://staging.example', token: undefined, timeout: 5 });
    expect(staging.sources.token).toBe('none');
  });

  it('a profile defined only in the project config is known', async () => {
    writeProject('.pmrc.json', { profiles: { ci: { base_url: 'https://ci.example' } } });
    expect((await resolveTarget({ profile: 'ci' }, deps())).baseUrl).toBe('https://ci.example');
  });

  it('rejects a profile no config defines, listing the known ones', async () => {
    writeUser(user);
    writeProject('.pmrc.json', { profiles: { ci: {} } });
    for (const [flags, env, origin] of [
      [{ profile: 'wrok' }, {}, '--profile'],
      [{}, { PM_PROFILE: 'wrok' }, 'PM_PROFILE'],
    ] as const) {
      const err = await failure(resolveTarget(flags, deps(env)));
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('"wrok"');
      expect(err.message).toContain(origin);
      expect(err.hint).toContain('default, ci, work, staging');
    }
  });

  it('rejects a default_profile that names no profile, naming the file', async () => {
    const file = writeUser({ default_profile: 'gone' });
    const err = await failure(resolveTarget({}, deps()));
    expect(err.message).toContain('"gone"');
    expect(err.message).toContain(file);
  });

  it('accepts a new profile with allowNewProfile (for `pm auth login --profile new`)', async () => {
    const t = await resolveTarget({ baseUrl: 'https://new.example', profile: 'fresh' }, deps(), {
      allowNewProfile: true,
    });
    expect(t).toMatchObject({ profile: 'fresh', baseUrl: 'https://new.example', token: undefined });
  });

  it('always accepts "default", even when no config exists', async () => {
    expect((await resolveTarget({ profile: 'default' }, deps())).sources.profile).toBe('flag');
  });
});

describe('project config: every kind of file cosmiconfig finds', () => {
  const kinds: [string, string, string][] = [
    ['package.json "pm" key', 'package.json', JSON.stringify({ name: 'x', pm: { base_url: 'https://pkg.example' } })],
    ['.pmrc (JSON)', '.pmrc', '{ "base_url": "https://rc.example" }'],
    ['.pmrc (YAML)', '.pmrc', 'base_url: https://rcyaml.example\n'],
    ['.pmrc.json', '.pmrc.json', '{ "base_url": "https://rcjson.example" }'],
    ['.pmrc.yaml', '.pmrc.yaml', 'base_url: https://yaml.example\ntimeout: 12\n'],
    ['.pmrc.yml', '.pmrc.yml', 'base_url: "https://yml.example"\n'],
  ];

  it.each(kinds)('%s, found from a subdirectory', async (_name, file, content) => {
    const path = writeProject(file, content);
    const t = await resolveTarget({}, deps());
    expect(t.projectConfigPath).toBe(path);
    expect(t.sources.baseUrl).toBe('project');
    const expected = /https:\/\/[a-z]+\.example/.exec(content)?.[0];
    expect(t.baseUrl).toBe(expected);
  });

  it('goes on upwards past a package.json without a "pm" key', async () => {
    writeProject('package.json', JSON.stringify({ name: 'inner' }), cwd);
    const path = writeProject('.pmrc.json', { base_url: 'https://outer.example' });
    expect((await resolveTarget({}, deps())).projectConfigPath).toBe(path);
  });

  it('takes the nearest file', async () => {
    writeProject('.pmrc.json', { base_url: 'https://outer.example' });
    writeProject('.pmrc.json', { base_url: 'https://inner.example' }, cwd);
    expect((await resolveTarget({}, deps())).baseUrl).toBe('https://inner.example');
  });

  it('searches the home directory, and stops there', async () => {
    writeFileSync(join(root, '.pmrc.json'), JSON.stringify({ base_url: 'https://above-home.example' }));
    expect((await resolveTarget({}, deps())).projectConfigPath).toBeUndefined();
    writeProject('.pmrc.json', { base_url: 'https://home.example' }, home);
    expect((await resolveTarget({}, deps())).baseUrl).toBe('https://home.example');
  });

  it('lists the directories from cwd up to home or a repository root, never above', () => {
    const none = () => false;
    expect(searchDirs('/a/home/p/q', '/a/home', none)).toEqual(['/a/home/p/q', '/a/home/p', '/a/home']);
    const repo = (d: string) => d === '/a/home/p';
    expect(searchDirs('/a/home/p/q', '/a/home', repo)).toEqual(['/a/home/p/q', '/a/home/p']);
    // Outside home: up to a repository root, else the working directory alone.
    expect(searchDirs('/srv/app/src', '/a/home', (d) => d === '/srv/app')).toEqual(['/srv/app/src', '/srv/app']);
    expect(searchDirs('/tmp/x/y', '/a/home', none)).toEqual(['/tmp/x/y']);
  });

  it('never runs an executable config, and says so', async () => {
    const marker = join(root, 'ran');
    for (const name of ['pm.config.js', 'pm.config.mjs', 'pm.config.cjs'])
      writeProject(
        name,
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = { base_url: 'https://js.example' };\n`,
      );
    const t = await resolveTarget({}, deps());
    expect(t.baseUrl).toBeUndefined();
    expect(t.warnings.join('\n')).toMatch(/pm\.config\.js is not read: pm reads no executable config/);
    expect(existsSync(marker)).toBe(false);
  });

  it('does not read a config file anyone may write to, or in a folder anyone may write to', async () => {
    const path = writeProject('.pmrc.json', { base_url: 'https://planted.example' });
    chmodSync(path, 0o666);
    const t = await resolveTarget({}, deps());
    expect(t.baseUrl).toBeUndefined();
    expect(t.warnings.join('\n')).toContain('anyone may write to it');
    chmodSync(path, 0o644);
    chmodSync(dirname(path), 0o777);
    const u = await resolveTarget({}, deps());
    expect(u.baseUrl).toBeUndefined();
    expect(u.warnings.join('\n')).toContain(`anyone may write to ${dirname(path)}`);
    chmodSync(dirname(path), 0o755);
    expect((await resolveTarget({}, deps())).baseUrl).toBe('https://planted.example');
  });
});

describe('base URLs', () => {
  it.each([
    ['https://api.example.com/', 'https://api.example.com'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['https://example.com/pm/v1//', 'https://example.com/pm/v1'],
  ])('%s -> %s', (raw, expected) => {
    expect(normalizeBaseUrl(raw, 'x')).toBe(expected);
  });

  it.each(['api.example.com', 'ftp://example.com', 'https://example.com/?a=1', 'not a url', ''])(
    'refuses "%s"',
    (raw) => {
      expect(() => normalizeBaseUrl(raw, '--base-url')).toThrow(/--base-url/);
    },
  );

  it('names where a bad base URL came from', async () => {
    let err = await failure(resolveTarget({ baseUrl: 'example.com' }, deps()));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^--base-url: "example.com" is not an http\(s\) URL/);
    err = await failure(resolveTarget({}, deps({ PM_BASE_URL: 'ftp://x' })));
    expect(err.message).toMatch(/^PM_BASE_URL:/);
    const file = writeProject('.pmrc.yaml', 'profiles:\n  work:\n    base_url: nope\n');
    err = await failure(resolveTarget({ profile: 'work' }, deps()));
    expect(err.message).toContain(`profiles.work.base_url in project config ${file}`);
  });
});

describe('malformed config files: exit 2, naming the file and the key', () => {
  it.each([
    ['.pmrc.json', '{ "base_url": ', /is not|could not be loaded/],
    ['.pmrc.yaml', 'base_url: [unclosed\n', /could not be loaded/],
    ['.pmrc.json', '{ "timeout": "soon" }', /"timeout" must be a positive number of seconds, not "soon"/],
    ['.pmrc.json', '{ "profiles": { "work": { "token": 7 } } }', /"profiles.work.token" must be a non-empty string/],
    ['.pmrc.json', '{ "profiles": [] }', /"profiles" must be an object/],
    ['.pmrc.yaml', 'just words\n', /must be an object of settings/],
  ])('project %s: %s', async (file, content, message) => {
    const path = writeProject(file, content);
    const err = await failure(resolveTarget({}, deps()));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(message);
  });

  it('user config that is not JSON', async () => {
    const path = writeUser('{ nope');
    const err = await failure(resolveTarget({}, deps()));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/not valid JSON/);
  });

  it('user config with a wrong type', async () => {
    writeUser({ profiles: { work: { timeout: -1 } } });
    const err = await failure(resolveTarget({}, deps()));
    expect(err.message).toMatch(/"profiles.work.timeout" must be a positive number of seconds, not -1/);
  });

  it('warns about, and ignores, an unknown key', async () => {
    const path = writeUser({ baseurl: 'https://typo.example' });
    const t = await resolveTarget({}, deps());
    expect(t.sources.baseUrl).toBe('embedded');
    expect(t.warnings).toEqual([expect.stringContaining(`${path}: unknown key "baseurl"`)]);
  });
});

describe('file permissions', () => {
  it.skipIf(process.platform === 'win32')('warns when a file holding a token is readable by others', async () => {
    const path = writeUser({ base_url: 'https://a.example', token: 'pm_usertokenusertokenuser' }, 0o644);
    const t = await resolveTarget({}, deps());
    expect(t.warnings).toEqual([`${path} holds a token and is readable by others; run chmod 600 ${path}`]);
  });

  it.skipIf(process.platform === 'win32')('checks the project file too, wherever the token is', async () => {
    const path = writeProject('.pmrc.json', { profiles: { ci: { token: 'pm_citokencitokencitoken' } } }, proj, 0o640);
    const t = await resolveTarget({}, deps());
    expect(t.warnings).toEqual([expect.stringContaining(`run chmod 600 ${path}`)]);
  });

  it('says nothing of a 0600 file, or of a readable file without a token', async () => {
    writeUser({ base_url: 'https://a.example', token: 'pm_usertokenusertokenuser' }, 0o600);
    writeProject('.pmrc.json', { timeout: 3 }, proj, 0o644);
    expect((await resolveTarget({}, deps())).warnings).toEqual([]);
  });
});

describe('readUserConfig / writeUserConfig', () => {
  it('reads {} when there is no file', async () => {
    expect(await readUserConfig(deps())).toEqual({});
  });

  it.skipIf(process.platform === 'win32')('writes mode 0600 in a 0700 directory, and reads it back', async () => {
    const cfg = { base_url: 'https://a.example', profiles: { work: { token: 'pm_worktokenworktokenwork' } } };
    await writeUserConfig(deps(), cfg);
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(xdg, 'pm')).mode & 0o777).toBe(0o700);
    expect(await readUserConfig(deps())).toEqual(cfg);
    expect(readFileSync(userFile(), 'utf8')).toBe(`${JSON.stringify(cfg, null, 2)}\n`);
  });

  it.skipIf(process.platform === 'win32')('tightens an existing file to 0600, leaving no temporary file', async () => {
    writeUser({ timeout: 1 }, 0o644);
    await writeUserConfig(deps(), { timeout: 2 });
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
    expect(await readUserConfig(deps())).toEqual({ timeout: 2 });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(xdg, 'pm'))).toEqual(['config.json']);
  });

  it('uses ~/.config without XDG_CONFIG_HOME', async () => {
    const d = { ...deps(), env: {} };
    await writeUserConfig(d, { timeout: 9 });
    const t: Target = await resolveTarget({}, d);
    expect(t.userConfigPath).toBe(join(home, '.config', 'pm', 'config.json'));
    expect(t.timeout).toBe(9);
  });
});

describe('redact', () => {
  it.each([
    [undefined, undefined],
    ['short', '****'],
    ['pm_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', 'pm_…DEFG'],
    ['0123456789abcdefghij', '…ghij'],
  ])('%s -> %s', (token, expected) => {
    expect(redact(token)).toBe(expected);
  });
});
