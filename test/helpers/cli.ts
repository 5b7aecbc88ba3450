/**
 * Runs pm in-process with string buffers for its streams, an environment of the test's own and
 * a fixed clock, against a real server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Deps, OutStream, Prompter } from '../../src/cli/context.js';
import { run } from '../../src/cli/run.js';

export class Buffer_ implements OutStream {
  text = '';
  constructor(
    readonly isTTY = false,
    readonly columns = 120,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface RunOptions {
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string;
  /** Both stdout and stderr are terminals (and stdin too, when no stdin text is given). */
  readonly tty?: boolean;
  /** The terminal's width (120 unless given). */
  readonly columns?: number;
  readonly home?: string;
  readonly cwd?: string;
  readonly now?: number;
  readonly timeZone?: string;
  readonly prompter?: Prompter;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh empty home directory. */
export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'pm-home-'));
}

export async function runPm(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const stdout = new Buffer_(opts.tty ?? false, opts.columns);
  const stderr = new Buffer_(opts.tty ?? false, opts.columns);
  const stdin = Object.assign(Readable.from(opts.stdin !== undefined ? [opts.stdin] : []), {
    isTTY: opts.stdin === undefined && (opts.tty ?? false),
  });
  const home = opts.home ?? tempHome();
  const deps: Deps = {
    io: { stdout, stderr, stdin },
    // A pager would write to this process's terminal, not to the buffers: off unless a test sets one.
    env: { HOME: home, PM_PAGER: 'cat', ...opts.env },
    cwd: opts.cwd ?? home,
    home,
    now: () => opts.now ?? Date.parse('2026-11-21T12:00:00Z'),
    timeZone: opts.timeZone ?? 'UTC',
    ...(opts.prompter ? { prompter: opts.prompter } : {}),
  };
  const code = await run(args, deps);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Where `pm` is pointed: a server's base URL, and an account's token on it. */
interface Target {
  readonly url: string;
  readonly token: string;
}

/**
 * `pm` run in-process against a server as an account: `runPm` with PM_BASE_URL and PM_TOKEN of
 * `target()`, read at each run (so a server a `beforeAll` starts is found), `base` under each
 * run's options and each run's env over base's. A run may name another account's token.
 */
export function pmAgainstServer(target: () => Target, base: RunOptions = {}) {
  return (args: readonly string[], opts: RunOptions = {}, token?: string): Promise<RunResult> => {
    const { url, token: own } = target();
    return runPm(args, {
      ...base,
      ...opts,
      env: { PM_BASE_URL: url, PM_TOKEN: token ?? own, ...base.env, ...opts.env },
    });
  };
}

/** The built CLI, as a user runs it. */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pm');

interface SpawnResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program without blocking this process (a test server in this process may be what it
 * talks to), and collects its output. `stdin`, when given, is written and closed.
 */
export function spawnCollect(
  cmd: string,
  args: readonly string[],
  opts: { env: Record<string, string>; cwd?: string; stdin?: string },
): Promise<SpawnResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      env: opts.env,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  });
}

/** The built pm run against a server with an account's token, from an empty home: its environment, and a runner. */
export function pmAgainst(url: string, token: string) {
  const env = { HOME: tempHome(), PATH: process.env.PATH ?? '', PM_BASE_URL: url, PM_TOKEN: token };
  const pm = (args: readonly string[], stdin?: string) => pmBin(args, env, stdin === undefined ? {} : { stdin });
  return { env, pm };
}

/** The built bin/pm with these arguments. */
export function pmBin(
  args: readonly string[],
  env: Record<string, string>,
  opts: { cwd?: string; stdin?: string } = {},
): Promise<SpawnResult> {
  return spawnCollect(process.execPath, [BIN, ...args], { env, ...opts });
}

/** The URL a `pm serve` child process says it listens on (rejected if it exits first). */
export function listeningUrl(child: ChildProcess): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`pm serve exited ${code}: ${stderr}`)));
  });
}
