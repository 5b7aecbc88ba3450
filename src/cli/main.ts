/** The process entry: real streams, environment and clock, then run() and the exit code. */
import { fstatSync, writeSync } from 'node:fs';
import { mark, startTiming, timingReport } from '../core/timing.js';
import type { Deps, OutStream, Prompter } from './context.js';
import { CliError, EXIT } from './errors.js';
import { run } from './run.js';

function prompter(): Prompter {
  return {
    async confirm(question) {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      // Ctrl-C at the question (which readline catches, in raw mode) ends its line and stops the
      // command as Ctrl-C does anywhere else (exit 130); without this, the question would hang.
      const stop = new AbortController();
      rl.on('SIGINT', () => stop.abort());
      try {
        const answer = await rl.question(`${question} [y/N] `, { signal: stop.signal });
        return /^y(es)?$/i.test(answer.trim());
      } catch (e) {
        if (stop.signal.aborted) throw new CliError(EXIT.interrupted, 'interrupted: nothing was done.');
        throw e;
      } finally {
        rl.close();
      }
    },
    secret: async (question) => (await import('./secret.js')).readSecret(question),
  };
}

/**
 * Standard output or error. A pipe, a file or /dev/null is written straight to its file descriptor
 * (fs.writeSync): making process.stdout loads node:stream, and for a pipe node:net too (4 to 15
 * ms), which a run need not pay to write a few lines; Node writes pipes and files synchronously
 * on Linux anyway. A terminal, or a descriptor that would block (a non-blocking pipe a parent
 * shared), gets process[name]. A reader that stops early (`pm properties list | head -1`) is not
 * an error.
 */
function outStream(name: 'stdout' | 'stderr'): OutStream & { readonly fd: number; settled(): boolean } {
  const fd = name === 'stdout' ? 1 : 2;
  let made: NodeJS.WriteStream | undefined;
  const stream = () => {
    if (made) return made;
    made = process[name];
    made.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
    return made;
  };
  let direct: boolean | undefined;
  const write = (chunk: string | Uint8Array): boolean => {
    direct ??= !mayBeTerminal(fd);
    if (!direct || made) return stream().write(chunk);
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(fd, bytes));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') process.exit(process.exitCode ?? 0);
        if (code !== 'EAGAIN') throw e;
        direct = false;
        return stream().write(bytes);
      }
    }
    return true;
  };
  return {
    fd,
    write,
    settled: () => made === undefined || (made.writableLength === 0 && process.platform === 'linux'),
    once: (event, listener) => stream().once(event, listener),
    get isTTY() {
      // Only a character device can be a terminal: a pipe or a file is told apart without the
      // stream (`pm reminders create` asks before saying "Created ..." on stderr).
      if (!made && !mayBeTerminal(fd)) return undefined;
      return stream().isTTY;
    },
    get columns() {
      return stream().columns;
    },
  };
}

/**
 * Whether `fd` may be a terminal, told by fstat without node:tty: a terminal is a character
 * device, and on Linux not one of the memory devices (major 1: /dev/null, /dev/zero), which a
 * script sends what it does not read to.
 */
function mayBeTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    return !(process.platform === 'linux' && ((stat.rdev >> 8) & 0xfff) === 1);
  } catch {
    return true;
  }
}

/**
 * The run. `timing`: the moments bin/pm saw before the bundle ran, given when PM_TIMING=1 (then
 * each phase's time is printed on stderr as the process exits).
 */
export async function main(timing?: [string, number][]): Promise<void> {
  if (timing) {
    startTiming(timing);
    process.once('exit', () => {
      mark('exit');
      process.stderr.write(timingReport() ?? '');
    });
  }
  const controller = new AbortController();
  let interrupted = false;
  let interruptIsStop = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const stdout = outStream('stdout');
  const stderr = outStream('stderr');
  const deps: Deps = {
    io: {
      stdout,
      stderr,
      // Opened by the first command that reads it: opening it loads readline, file streams and
      // watchers, which a run that never reads stdin need not pay for.
      get stdin() {
        return process.stdin;
      },
    },
    env: process.env,
    cwd: process.cwd(),
    // HOME, as os.homedir() reads it first (without loading node:os), else the user's entry.
    home: process.env.HOME || process.getBuiltinModule('node:os').homedir(),
    now: Date.now,
    prompter: prompter(),
    signal: controller.signal,
    interruptIsStop: () => {
      interruptIsStop = true;
    },
  };
  mark('main');
  const code = await run(process.argv.slice(2), deps);
  process.off('SIGINT', onSigint);
  process.exitCode = interrupted && !interruptIsStop ? 130 : code;
  // The run is over, and what it wrote has been written (straight to a pipe or a file, or by a
  // terminal's stream, which writes at once on Linux): exit now rather than after Node has freed
  // the heap, handle by handle (a millisecond or two). A command that stops a server (pm serve)
  // ends as Node ends, after its last log line has been flushed; so does a run whose stream still
  // holds bytes.
  if (!interruptIsStop && stdout.settled() && stderr.settled()) process.exit();
}
