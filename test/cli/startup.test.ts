/**
 * What a run on the embedded default loads of Node itself, the built bin/pm run as a user runs
 * it: each of Node's modules costs a run some milliseconds to load, and the ones below have no
 * use on these paths (the benchmark's figure 3 times them). And PM_TIMING=1, which says where a
 * run's time goes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, spawnCollect } from '../helpers/cli.js';

/** Node's modules none of these runs has a use for. */
const NEVER = [
  'fs/promises', // the config is read with node:fs
  'readline', // loaded by opening process.stdin, which none of them reads
  'child_process', // commander's, for executable subcommands pm has none of
  'dgram',
  'tty', // chalk's colour check: pm always says the level
  'http', // the embedded default answers in-process, without a socket
  'worker_threads',
  'v8', // the HTTP client's flag: no HTTP client here
  'zlib',
  'module', // bin/pm's code cache needs none of it on Node 20 (it brings the ES module loader)
  'os', // only for a database in memory (datafile.ts)
];
/**
 * And node:crypto: the embedded default hashes no token, and a new record's uuid comes from
 * SQLite's random bytes.
 */
const NOT_TO_READ = [...NEVER, 'crypto'];

describe('a run on the embedded default', () => {
  let dir: string;
  let env: Record<string, string>;
  let preload: string;
  let uuid: string;

  /** The run, and the public modules of Node it loaded (process.moduleLoadList as it exits). */
  const run = async (args: readonly string[], extra: Record<string, string> = {}) => {
    const out = join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`);
    const r = await spawnCollect(process.execPath, ['--require', preload, BIN, ...args], {
      env: { ...env, PM_TEST_MODULES: out, ...extra },
    });
    expect({ args, code: r.code }).toEqual({ args, code: 0 });
    const modules = readFileSync(out, 'utf8')
      .split('\n')
      .filter((m) => m.startsWith('NativeModule ') && !m.startsWith('NativeModule internal/'))
      .map((m) => m.slice('NativeModule '.length));
    return { ...r, modules };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pm-startup-'));
    preload = join(dir, 'modules.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.PM_TEST_MODULES, process.moduleLoadList.join('\\n')));",
    );
    env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home'), XDG_DATA_HOME: join(dir, 'data') };
    // The first run makes the data file, its account and its token.
    const made = await run(['properties', 'create', '--address', '1 Mill Lane', '--postcode', 'LS1 1AA', '-q']);
    uuid = made.stdout.trim();
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a list and a get load none of the modules they do not use (node:crypto included)', async () => {
    for (const args of [
      ['properties', 'list', '--json'],
      ['properties', 'get', uuid, '--json'],
    ]) {
      // Twice: the second run compiles from the code cache the first made.
      for (const round of [1, 2]) {
        const r = await run(args);
        expect({ args, round, loaded: r.modules.filter((m) => NOT_TO_READ.includes(m)) }).toEqual({
          args,
          round,
          loaded: [],
        });
      }
    }
    const list = await run(['properties', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ uuid, address: '1 Mill Lane' }));
  });

  it('a create loads none of them either, and gives each record a version 4 uuid of its own', async () => {
    const uuids = new Set<string>();
    for (const title of ['Gas safety check', 'Boiler service']) {
      const r = await run(['reminders', 'create', '--title', title, '--due-at', '2027-01-01', '--json']);
      const made = JSON.parse(r.stdout);
      expect(made).toMatchObject({ title, due_at: '2027-01-01' });
      expect(made.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      uuids.add(made.uuid);
      expect(r.modules.filter((m) => NOT_TO_READ.includes(m))).toEqual([]);
    }
    expect(uuids.size).toBe(2);
  });

  it('a list, a get, a create, --version and --help written to a file, a pipe or /dev/null make no stream: node:stream, node:net and node:tty are not loaded', async () => {
    for (const target of ['file', 'pipe', '/dev/null'] as const)
      for (const args of [
        ['properties', 'list', '--json'],
        ['properties', 'get', uuid, '--json'],
        ['reminders', 'create', '--title', 'Check the smoke alarms', '--json'],
        // bin/pm's own fast paths.
        ['--version'],
        ['--help'],
      ]) {
        const file = join(dir, 'out.json');
        const fd = openSync(target === 'file' ? file : '/dev/null', 'w');
        const out = join(dir, 'modules-file.txt');
        const child = spawn(process.execPath, ['--require', preload, BIN, ...args], {
          env: { ...env, PM_TEST_MODULES: out },
          stdio: ['ignore', target === 'pipe' ? 'pipe' : fd, 'pipe'],
        });
        closeSync(fd);
        let stdout = '';
        child.stdout?.on('data', (c) => {
          stdout += String(c);
        });
        let stderr = '';
        child.stderr?.on('data', (c) => {
          stderr += String(c);
        });
        const [code] = await once(child, 'close');
        expect({ target, args, code, stderr }).toEqual({ target, args, code: 0, stderr: '' });
        if (target !== '/dev/null') {
          const written = target === 'file' ? readFileSync(file, 'utf8') : stdout;
          if (args[0] === '--version') expect(written).toMatch(/^\d+\.\d+\.\d+\n$/);
          else if (args[0] === '--help')
            expect(written).toMatch(/^Usage: pm \[options\] \[command\]\n[\s\S]*\nCommands:\n/);
          else {
            expect(written).toMatch(args[0] === 'reminders' ? /Check the smoke alarms/ : uuid);
            expect(() => JSON.parse(written)).not.toThrow();
          }
        }
        const modules = readFileSync(out, 'utf8').split('\n');
        expect(modules).toContain('NativeModule fs');
        const streams = ['NativeModule stream', 'NativeModule net', 'NativeModule tty'];
        expect({ target, args, loaded: modules.filter((m) => streams.includes(m)) }).toEqual({
          target,
          args,
          loaded: [],
        });
      }
  });

  it('a list, a get and a create set no timer, and a run that finds its code cache sets no hook at exit', async () => {
    // Counts the timers a run sets (each loads and compiles Node's timer code) and the listeners
    // on process 'exit' as it exits: the check's own, and bin/pm's, which writes a code cache.
    const counter = join(dir, 'timers.cjs');
    writeFileSync(
      counter,
      `let timers = 0;
      const timersModule = require('node:timers');
      for (const name of ['setTimeout', 'setImmediate', 'setInterval']) {
        const real = timersModule[name];
        const counted = function (...args) { timers++; return real.apply(this, args); };
        timersModule[name] = counted;
        globalThis[name] = counted;
      }
      process.on('exit', () => require('node:fs').writeFileSync(process.env.PM_TEST_TIMERS, JSON.stringify({ timers, exitHooks: process.listenerCount('exit') })));`,
    );
    const cacheHome = join(dir, 'timers-cache');
    const seen = async (args: string[]) => {
      const out = join(dir, `timers-${Math.random().toString(36).slice(2)}.json`);
      const r = await spawnCollect(process.execPath, ['--require', counter, BIN, ...args], {
        env: { ...env, PM_TEST_TIMERS: out, XDG_CACHE_HOME: cacheHome },
      });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
      return JSON.parse(readFileSync(out, 'utf8')) as { timers: number; exitHooks: number };
    };
    for (const args of [
      ['properties', 'list', '--json'],
      ['properties', 'get', uuid, '--json'],
      ['reminders', 'create', '--title', 'Test the carbon monoxide alarm', '--json'],
    ]) {
      // The first run has no cache yet: bin/pm's hook writes it as the run ends.
      expect({ args, ...(await seen(args)) }).toEqual({ args, timers: 0, exitHooks: 2 });
      expect({ args, ...(await seen(args)) }).toEqual({ args, timers: 0, exitHooks: 1 });
    }
  });

  it('a list, a get and a create read no chunk of the packages few runs use; a calendar reads ical.js, a date in words luxon', async () => {
    const compiled = async (args: string[]) => {
      await run(args);
      const r = await run(args, { PM_TIMING: '1' });
      return r.stderr
        .split('\n')
        .map((l) => /^ {2}(\S+) compiled \(/.exec(l)?.[1])
        .filter(Boolean);
    };
    expect(await compiled(['properties', 'list', '--json'])).toEqual(['bundle']);
    expect(await compiled(['properties', 'get', uuid, '--json'])).toEqual(['bundle']);
    expect(await compiled(['reminders', 'create', '--title', 'Sweep the chimney', '--json'])).toEqual(['bundle']);
    expect(await compiled(['reminders', 'list', '-o', 'ics'])).toEqual(['bundle', 'ical']);
    // luxon, for a date in words (an ISO date is read without it).
    expect(await compiled(['reminders', 'create', '--title', 'Bleed the radiators', '--due-at', 'in 3 days'])).toEqual([
      'bundle',
      'luxon',
    ]);
  });

  it('a create with an ISO due date, and its check by the server, do without luxon; a date in words loads it', async () => {
    const phases = async (args: string[]) => {
      const r = await run(args, { PM_TIMING: '1' });
      return r.stderr.split('\n').map((l) => /^ {2}(.+?) +[\d.]+ +\+[\d.]+$/.exec(l)?.[1]);
    };
    const iso = await phases([
      'reminders',
      'create',
      '--title',
      'Check the smoke alarms',
      '--due-at',
      '2027-03-01T09:30:00+01:00',
      '--json',
    ]);
    expect(iso).toContain('answered');
    expect(iso).not.toContain('luxon loaded');
    const words = await phases([
      'reminders',
      'create',
      '--title',
      'Bleed the radiators',
      '--due-at',
      'tomorrow 9am',
      '--json',
    ]);
    expect(words).toContain('luxon loaded');
  });

  it('the check sees a module a run does load', async () => {
    // A token made for pm serve hashes it (node:crypto), and writing it to stdout is all.
    const r = await run(['serve', 'tokens', 'create', '--name', 'ci', '--data', join(dir, 'data', 'pm', 'pm.db')]);
    expect(r.stdout).toMatch(/^pm_/);
    expect(r.modules).toContain('crypto');
  });

  it('PM_TIMING=1 prints each phase of the run on stderr, the output unchanged', async () => {
    const plain = await run(['properties', 'get', uuid, '--json']);
    const timed = await run(['properties', 'get', uuid, '--json'], { PM_TIMING: '1' });
    expect(timed.stdout).toBe(plain.stdout);
    expect(plain.stderr).toBe('');
    const lines = timed.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe("pm timing (ms since the process started, and each phase's own):");
    const phases = lines.slice(1).map((l) => /^ {2}(.+?) +(\d+\.\d) +\+(\d+\.\d)$/.exec(l));
    expect(phases.every(Boolean)).toBe(true);
    const names = phases.map((m) => (m as RegExpExecArray)[1]);
    for (const name of ['node started', 'program built', 'config read', 'store opened', 'answered', 'printed', 'exit'])
      expect(names).toContain(name);
    expect(names.some((n) => n?.startsWith('bundle compiled'))).toBe(true);
    // Times only grow, and each phase's own is the difference.
    const at = phases.map((m) => Number((m as RegExpExecArray)[2]));
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});
