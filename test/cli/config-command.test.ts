/**
 * `pm config`, run in-process through commander with string buffers, against real files in a
 * temporary home directory.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFactory } from '../../src/cli/factory.js';
import type { GlobalOptions } from '../../src/cli/globals.js';
import { registerConfig } from '../../src/cli/commands/config/config.js';
import type { Deps, Env } from '../../src/cli/context.js';
import { CliError } from '../../src/cli/errors.js';

const USER_TOKEN = 'pm_usertokenUSERTOKENusertoken0001';
const PROJECT_TOKEN = 'pm_projecttokenPROJECTtoken0002';
const ENV_TOKEN = 'pm_envtokenENVTOKENenvtoken0003';

let root: string;
let home: string;
let proj: string;
let xdg: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pm-config-cmd-'));
  home = join(root, 'home');
  proj = join(home, 'proj');
  xdg = join(root, 'xdg');
  mkdirSync(proj, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const userFile = () => join(xdg, 'pm', 'config.json');

function writeUser(cfg: unknown, mode = 0o600): void {
  mkdirSync(join(xdg, 'pm'), { recursive: true });
  writeFileSync(userFile(), JSON.stringify(cfg));
  chmodSync(userFile(), mode);
}

function readUser(): unknown {
  return JSON.parse(readFileSync(userFile(), 'utf8'));
}

interface Result {
  stdout: string;
  stderr: string;
  error: unknown;
}

async function pm(args: string[], env: Env = {}): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const deps: Deps = {
    io: {
      stdout: {
        write: (s: string) => {
          stdout += s;
        },
      },
      stderr: {
        write: (s: string) => {
          stderr += s;
        },
      },
      stdin: (async function* () {})(),
    },
    env: { XDG_CONFIG_HOME: xdg, ...env },
    cwd: proj,
    home,
    now: () => 0,
  };
  const program = new Command('pm').option('--base-url <url>').option('--profile <name>').exitOverride();
  program.configureOutput({
    writeOut: (s) => {
      stdout += s;
    },
    writeErr: (s) => {
      stderr += s;
    },
  });
  const f = createFactory(deps);
  // As run() does: the global flags resolved once, when the action begins.
  program.hook('preAction', (_root, cmd) => f.resolveGlobals(cmd.optsWithGlobals() as GlobalOptions));
  registerConfig(program, f);
  const visit = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({
      writeOut: (s) => {
        stdout += s;
      },
      writeErr: (s) => {
        stderr += s;
      },
    });
    c.commands.forEach(visit);
  };
  visit(program);
  let error: unknown;
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (e) {
    error = e;
  }
  return { stdout, stderr, error };
}

function usage(r: Result): CliError {
  expect(r.error).toBeInstanceOf(CliError);
  expect((r.error as CliError).exitCode).toBe(2);
  return r.error as CliError;
}

describe('pm config list', () => {
  it('shows the embedded default when nothing is configured', async () => {
    const r = await pm(['config', 'list']);
    expect(r.error).toBeUndefined();
    const dataFile = join(home, '.local', 'share', 'pm', 'pm.db');
    expect(r.stdout).toBe(
      [
        'profile   default             default',
        `base_url  (embedded default)  the bundled server on ${dataFile}`,
        `token     (embedded default)  read from ${dataFile}.token`,
        'timeout   (not set)           the client default applies',
        '',
        `user config     ${userFile()}`,
        'project config  (none found)',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
  });

  it('shows each setting with where it came from, the token redacted', async () => {
    writeUser({ profiles: { work: { base_url: 'https://work.example', token: USER_TOKEN } } });
    const pmrc = join(proj, '.pmrc.json');
    writeFileSync(pmrc, JSON.stringify({ profile: 'work', timeout: 12 }));
    const r = await pm(['config', 'list']);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toBe(
      [
        `profile   work                  project config (${pmrc})`,
        `base_url  https://work.example  user config (${userFile()})`,
        `token     pm_…0001              user config (${userFile()})`,
        `timeout   12s                   project config (${pmrc})`,
        '',
        `user config     ${userFile()}`,
        `project config  ${pmrc}`,
        '',
      ].join('\n'),
    );
  });

  it('--json', async () => {
    writeUser({ base_url: 'https://a.example' });
    const r = await pm(['--profile', 'default', 'config', 'list', '--json'], { PM_TOKEN: ENV_TOKEN });
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      base_url: 'https://a.example',
      token: 'pm_…0003',
      timeout: null,
      sources: { profile: 'flag', base_url: 'user', token: 'env', timeout: 'none' },
      data_file: null,
      token_file: null,
      user_config: userFile(),
      project_config: null,
    });
  });

  it('puts warnings on stderr', async () => {
    writeUser({ base_url: 'https://a.example', token: USER_TOKEN }, 0o644);
    const r = await pm(['config', 'list']);
    expect(r.stderr).toBe(
      `warning: ${userFile()} holds a token and is readable by others; run chmod 600 ${userFile()}\n`,
    );
  });

  it('fails on an unknown profile', async () => {
    const err = usage(await pm(['config', 'list', '--profile', 'nope']));
    expect(err.message).toContain('no profile "nope"');
  });
});

describe('tokens never appear in any output', () => {
  const setups: [string, Env, () => void][] = [
    ['user config', {}, () => writeUser({ base_url: 'https://a.example', token: USER_TOKEN }, 0o644)],
    [
      'project config',
      {},
      () => writeFileSync(join(proj, '.pmrc'), `base_url: https://p.example\ntoken: ${PROJECT_TOKEN}\n`),
    ],
    ['PM_TOKEN', { PM_BASE_URL: 'https://e.example', PM_TOKEN: ENV_TOKEN }, () => {}],
    ['PM_TOKEN, embedded', { PM_TOKEN: ENV_TOKEN }, () => {}],
  ];
  const commands = [
    ['config', 'list'],
    ['config', 'list', '--json'],
    ['config', 'get', 'token'],
    ['config', 'get', 'base_url'],
    ['config', 'path'],
    ['--base-url', 'https://other.example', 'config', 'list'],
  ];
  it.each(setups)('token from %s', async (_name, env, setup) => {
    setup();
    for (const args of commands) {
      const r = await pm(args, env);
      expect(r.error).toBeUndefined();
      const all = r.stdout + r.stderr;
      for (const t of [USER_TOKEN, PROJECT_TOKEN, ENV_TOKEN]) {
        expect(all).not.toContain(t);
        expect(all).not.toContain(t.slice(3, 20));
      }
    }
  });
});

describe('pm config get', () => {
  it('prints one value', async () => {
    writeUser({ base_url: 'https://a.example/', timeout: 7, default_profile: 'default' });
    expect((await pm(['config', 'get', 'base_url'])).stdout).toBe('https://a.example\n');
    expect((await pm(['config', 'get', 'timeout'])).stdout).toBe('7\n');
    expect((await pm(['config', 'get', 'profile'])).stdout).toBe('default\n');
    expect((await pm(['config', 'get', 'default_profile'])).stdout).toBe('default\n');
    expect((await pm(['config', 'get', 'base_url'], { PM_BASE_URL: 'http://localhost:9' })).stdout).toBe(
      'http://localhost:9\n',
    );
  });

  it('prints a token redacted, with a note on stderr', async () => {
    writeUser({ base_url: 'https://a.example', token: USER_TOKEN });
    const r = await pm(['config', 'get', 'token']);
    expect(r.stdout).toBe('pm_…0001\n');
    expect(r.stderr).toMatch(/tokens are never printed/);
  });

  it('prints nothing on stdout for an unset value', async () => {
    let r = await pm(['config', 'get', 'timeout']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('timeout is not set.\n');
    r = await pm(['config', 'get', 'base_url']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/embedded default/);
  });

  it('refuses an unknown key, listing the keys', async () => {
    const err = usage(await pm(['config', 'get', 'colour']));
    expect(err.message).toBe('unknown key "colour".');
    expect(err.hint).toBe('Keys: base_url, token, profile, timeout, default_profile.');
  });
});

describe('pm config set', () => {
  it('writes base_url for the default profile at the top level, mode 0600', async () => {
    const r = await pm(['config', 'set', 'base_url', 'https://api.example.com/']);
    expect(r.error).toBeUndefined();
    expect(readUser()).toEqual({ base_url: 'https://api.example.com' });
    expect(r.stderr).toBe(`set base_url = https://api.example.com for profile "default" in ${userFile()}\n`);
    if (process.platform !== 'win32') expect(statSync(userFile()).mode & 0o777).toBe(0o600);
    expect((await pm(['config', 'get', 'base_url'])).stdout).toBe('https://api.example.com\n');
  });

  it('creates a profile with --profile, keeping the rest of the file', async () => {
    writeUser({ base_url: 'https://a.example', token: USER_TOKEN }, 0o644);
    const r = await pm(['--profile', 'work', 'config', 'set', 'base_url', 'https://work.example']);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toContain('(new profile)');
    expect(readUser()).toEqual({
      base_url: 'https://a.example',
      token: USER_TOKEN,
      profiles: { work: { base_url: 'https://work.example' } },
    });
    if (process.platform !== 'win32') expect(statSync(userFile()).mode & 0o777).toBe(0o600);
    expect((await pm(['--profile', 'work', 'config', 'get', 'base_url'])).stdout).toBe('https://work.example\n');
  });

  it('sets timeout for every profile, or for the active one with --profile-scope', async () => {
    await pm(['config', 'set', 'timeout', '45']);
    await pm(['--profile', 'ci', 'config', 'set', 'base_url', 'https://ci.example']);
    const r = await pm(['--profile', 'ci', 'config', 'set', 'timeout', '2.5', '--profile-scope']);
    expect(r.stderr).toContain('for profile "ci"');
    expect(readUser()).toEqual({ timeout: 45, profiles: { ci: { base_url: 'https://ci.example', timeout: 2.5 } } });
    expect((await pm(['--profile', 'ci', 'config', 'get', 'timeout'])).stdout).toBe('2.5\n');
    expect((await pm(['config', 'get', 'timeout'])).stdout).toBe('45\n');
  });

  it('sets default_profile to a known profile only', async () => {
    writeUser({ profiles: { work: { base_url: 'https://work.example' } } });
    const err = usage(await pm(['config', 'set', 'default_profile', 'wrok']));
    expect(err.hint).toContain('Known profiles: default, work');
    expect((await pm(['config', 'set', 'default_profile', 'work'])).error).toBeUndefined();
    expect((await pm(['config', 'get', 'profile'])).stdout).toBe('work\n');
  });

  it('refuses a token', async () => {
    const r = await pm(['config', 'set', 'token', 'pm_secretsecretsecretsecret']);
    expect(usage(r).message).toBe('tokens are never passed as arguments; use `pm auth login`');
    expect(r.stdout + r.stderr).not.toContain('pm_secret');
  });

  it.each([
    [['base_url', 'api.example.com'], /is not an http\(s\) URL/],
    [['timeout', '0'], /not a positive number/],
    [['timeout', 'soon'], /not a positive number/],
    [['colour', 'red'], /unknown key "colour"/],
    [['default_profile', 'x', '--profile-scope'], /drop --profile-scope/],
  ])('refuses %j', async (args, message) => {
    const err = usage(await pm(['config', 'set', ...args]));
    expect(err.message).toMatch(message);
  });

  it('lists the keys for an unknown one', async () => {
    expect(usage(await pm(['config', 'set', 'colour', 'red'])).hint).toBe(
      'Keys you can set: base_url, timeout, default_profile.',
    );
  });

  it('says when a higher source overrides what was set', async () => {
    const r = await pm(['config', 'set', 'base_url', 'https://a.example'], { PM_BASE_URL: 'https://env.example' });
    expect(r.stderr).toMatch(/note: PM_BASE_URL is set in this environment and overrides it/);
  });

  it('warns that a stored token was for another base URL', async () => {
    writeUser({ base_url: 'https://old.example', token: USER_TOKEN });
    const r = await pm(['config', 'set', 'base_url', 'https://new.example']);
    expect(r.stderr).toMatch(/was for https:\/\/old\.example; run `pm auth login`/);
  });
});

describe('pm config unset', () => {
  it('removes a key, tidying empty profiles', async () => {
    writeUser({ timeout: 3, profiles: { work: { base_url: 'https://w.example' } } });
    let r = await pm(['--profile', 'work', 'config', 'unset', 'base_url']);
    expect(r.error).toBeUndefined();
    expect(readUser()).toEqual({ timeout: 3 });
    r = await pm(['config', 'unset', 'timeout']);
    expect(readUser()).toEqual({});
    r = await pm(['config', 'unset', 'timeout']);
    expect(r.stderr).toMatch(/timeout was not set for every profile .*nothing changed/);
  });

  it('does not create a file for nothing', async () => {
    await pm(['config', 'unset', 'base_url']);
    expect(() => statSync(userFile())).toThrow();
  });

  it('removes a token from the file', async () => {
    writeUser({ base_url: 'https://a.example', token: USER_TOKEN });
    const r = await pm(['config', 'unset', 'token']);
    expect(readUser()).toEqual({ base_url: 'https://a.example' });
    expect(r.stderr).toMatch(/not revoked/);
  });
});

describe('pm config path', () => {
  it('prints the user config path', async () => {
    expect((await pm(['config', 'path'])).stdout).toBe(`${userFile()}\n`);
  });

  it('and the project config on a second line, even when it is malformed', async () => {
    const pkg = join(proj, 'package.json');
    writeFileSync(pkg, JSON.stringify({ name: 'p', pm: { timeout: 'x' } }));
    const r = await pm(['config', 'path']);
    expect(r.stdout).toBe(`${userFile()}\n${pkg}\n`);
    expect(r.stderr).toContain('"timeout" must be a positive number');
  });
});

describe('help', () => {
  it.each(['list', 'get', 'set', 'unset', 'path'])('pm config %s --help has examples', async (sub) => {
    const r = await pm(['config', sub, '--help']);
    expect(r.stdout).toMatch(new RegExp(`Examples:\\n  pm .*config ${sub}`));
  });
});
