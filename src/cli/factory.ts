/**
 * What every command is given, made once per run (as gh's cmdutil.Factory): the outside world
 * (Deps: streams, environment, clock, prompter, abort signal), the global flags resolved once
 * when the command's action begins, and what is built from them on first use: the session to the
 * API and the display settings. Building a factory loads nothing; a command that never talks to
 * a server never opens a session.
 */
import type { Deps } from './context.js';
import type { GlobalOptions } from './globals.js';
import type { Display } from './output/index.js';
import type { Pager } from './pager.js';
import type { Session } from './session.js';

export interface Factory extends Deps {
  /** The global flags (--base-url, --profile, --no-color, --debug, ...), resolved once. */
  globals(): GlobalOptions;
  /** The session to the configured server or the embedded default: opened on first use. */
  session(): Promise<Session>;
  /**
   * How output is shown: terminal or pipe, colour, time zone, clock. `paged`: the output may be
   * long (a list, an agenda), so on a terminal it goes through the pager; a single record, with
   * the line about it on stderr, never does (the two would reach the screen out of order).
   */
  display(opts?: { paged?: boolean }): Promise<Display>;
}

/** A factory with the hooks run() drives: the globals, once parsed, and the close at the end. */
interface RunFactory extends Factory {
  resolveGlobals(globals: GlobalOptions): void;
  /** Closes what was opened (the session). */
  close(): Promise<void>;
}

export function createFactory(deps: Deps): RunFactory {
  let globals: GlobalOptions | undefined;
  let session: Promise<Session> | undefined;
  let pager: Promise<Pager | undefined> | undefined;
  const f: RunFactory = {
    ...deps,
    globals() {
      // Before any action (building the program, completion), the defaults.
      return globals ?? { color: true, input: true };
    },
    resolveGlobals(g) {
      globals = g;
    },
    session() {
      session ??= import('./session.js').then(({ openSession }) => openSession(f.globals(), deps));
      return session;
    },
    async display(opts = {}) {
      const { colorEnabled } = await import('./output/index.js');
      if (opts.paged)
        pager ??= import('./pager.js').then(({ startPager }) => startPager(deps, f.globals().pager !== false));
      const paged = opts.paged ? await pager : undefined;
      return {
        stdout: paged?.stdout ?? deps.io.stdout,
        // The footer goes through the pager too, after the records, rather than over its screen.
        stderr: paged && deps.io.stderr.isTTY ? paged.stdout : deps.io.stderr,
        color: colorEnabled(deps.env, deps.io.stdout.isTTY, f.globals().color),
        tty: deps.io.stdout.isTTY === true,
        ...(deps.timeZone ? { timeZone: deps.timeZone } : {}),
        now: deps.now,
      };
    },
    async close() {
      const opened: (Promise<{ close(): Promise<void> } | undefined> | undefined)[] = [session, pager];
      session = undefined;
      pager = undefined;
      for (const p of opened) await (await p?.catch(() => undefined))?.close();
    },
  };
  return f;
}
