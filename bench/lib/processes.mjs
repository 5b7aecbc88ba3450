/**
 * Children and temp dirs, tracked so that any exit removes them; timed runs of pm and of
 * baselines; pm serve and other servers started and waited for.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { NODE, PM, ROOT, TIME } from './env.mjs';

/** Every child still running and every temp dir: removed on any exit, even on failure. */
const children = new Set();

const tmpDirs = new Set();

function killGroup(child, signal) {
  try {
    // Each child leads a process group of its own (detached), so that a wrapper such as
    // /usr/bin/time takes its child with it.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** How to stop each PostgreSQL cluster still running (figure 8). */
export const clusters = new Set();

function cleanupSync() {
  for (const c of children) killGroup(c, 'SIGKILL');
  children.clear();
  for (const stop of clusters)
    try {
      stop();
    } catch {
      // already stopped
    }
  clusters.clear();
  children.clear();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  tmpDirs.clear();
}

process.on('exit', cleanupSync);

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    process.stderr.write(`\nbench: ${sig}: stopping every child and removing temp files\n`);
    cleanupSync();
    process.exit(130);
  });
}

export function tmpDir(label) {
  const d = mkdtempSync(join(os.tmpdir(), `pm-bench-${label}-`));
  tmpDirs.add(d);
  return d;
}

export function removeDir(d) {
  rmSync(d, { recursive: true, force: true });
  tmpDirs.delete(d);
}

/** Removes every temp dir made so far: a figure's, as soon as it is done. */
export function removeTmpDirs() {
  for (const d of [...tmpDirs]) removeDir(d);
}

function spawnTracked(cmd, args, options) {
  const child = spawn(cmd, args, { ...options, detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * The environment of every child: only PATH and HOME (an empty temp dir), plus what the figure
 * adds. No NODE_OPTIONS, PM_* or XDG_* from the caller, so a run measures the same thing anywhere.
 */
export function cleanEnv(home, extra = {}) {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra };
}

/**
 * Runs a command to its end and times it from spawn to exit (ms). stdout: 'ignore' (/dev/null),
 * 'capture' (kept, for checks), or 'count' (only its newlines counted). With `rss` (a temp dir
 * for its report), /usr/bin/time wraps the command and its peak RSS (MB) is returned.
 */
export async function runTimed(cmd, args, { env, stdout = 'ignore', rss, cwd = ROOT } = {}) {
  let rssFile;
  if (rss) {
    rssFile = join(rss, `rss-${randomUUID()}`);
    args = ['-f', '%M', '-o', rssFile, cmd, ...args];
    cmd = TIME;
  }
  const started = process.hrtime.bigint();
  const child = spawnTracked(cmd, args, {
    cwd,
    env,
    stdio: ['ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'],
  });
  let ended;
  child.once('exit', () => {
    ended = process.hrtime.bigint();
  });
  const out = [];
  let lines = 0;
  if (stdout === 'capture') child.stdout.on('data', (c) => out.push(c));
  if (stdout === 'count')
    child.stdout.on('data', (c) => {
      for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
    });
  const err = [];
  child.stderr.on('data', (c) => err.push(c));
  const [code, signal] = await once(child, 'close');
  const ms = Number((ended ?? process.hrtime.bigint()) - started) / 1e6;
  let rssMb;
  if (rssFile) {
    try {
      const text = readFileSync(rssFile, 'utf8').trim().split('\n').pop();
      rssMb = Number(text) / 1024;
    } catch {
      rssMb = undefined;
    }
    rmSync(rssFile, { force: true });
  }
  return {
    ms,
    code,
    signal,
    rssMb,
    lines,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
  };
}

/** Fails with the command's own words when it did not succeed. */
export function mustSucceed(what, r) {
  if (r.code === 0) return r;
  const tail = r.stderr.trim().split('\n').slice(-8).join('\n  ');
  throw new Error(`${what} exited ${r.code ?? r.signal}${tail ? `:\n  ${tail}` : ''}`);
}

/**
 * Starts a server process and waits for its "listening on URL" line on stderr. Returns its URL
 * and a stop() that ends it (SIGTERM, then SIGKILL after 5 s). Its stdout goes to /dev/null, or
 * to `stdout` (a file descriptor).
 */
export async function startListening(what, cmd, args, env, stdout = 'ignore') {
  const child = spawnTracked(cmd, args, { cwd: ROOT, env, stdio: ['ignore', stdout, 'pipe'] });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 20 s:\n${log}`)), 20_000);
    child.stderr.on('data', (c) => {
      log = (log + c.toString('utf8')).slice(-4000);
      const m = /listening on (https?:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code ?? signal} before listening:\n${log}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, stop, log: () => log, pid: child.pid };
}

/** A process's CPU time so far (user and system, seconds), from /proc. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * `pm serve --port 0 --data FILE` and `args`, with the token written beside the data file; its log
 * (stdout) to /dev/null, or to the file `log`.
 */
export async function startPmServe(dataFile, home, { args = [], log } = {}) {
  const fd = log === undefined ? undefined : openSync(log, 'a');
  const argv = [PM, 'serve', '--port', '0', '--data', dataFile, ...args];
  const s = await startListening('pm serve', NODE, argv, cleanEnv(home), fd).finally(() => {
    if (fd !== undefined) closeSync(fd);
  });
  const token = readFileSync(`${dataFile}.token`, 'utf8').trim();
  return { ...s, token };
}

export async function getJson(url, token) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}
