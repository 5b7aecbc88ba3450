/**
 * The one place that turns what happened into output and an exit code. Commands throw; run()
 * catches, prints one clear message (as JSON with --json), and returns the code.
 */
import { CommanderError } from 'commander';
import type { Deps } from './context.js';
import { visible } from '../core/redact.js';
import { CliError, EXIT } from './errors.js';
import { createFactory } from './factory.js';
import { mark } from '../core/timing.js';
import type { GlobalOptions } from './globals.js';
import { buildProgram, usageHint } from './program.js';

/** Whether a command's parsed options ask for JSON: its errors are JSON then too. */
function wantsJson(opts: Readonly<Record<string, unknown>>): boolean {
  return (opts.json !== undefined && opts.json !== false) || opts.output === 'json' || opts.output === 'ndjson';
}

export async function run(argv: readonly string[], deps: Deps): Promise<number> {
  const { io } = deps;
  const f = createFactory(deps);
  const program = buildProgram(f, argv);
  mark('program built');
  let active = program;
  // Decided from the options commander parsed, once it has: an error before that is commander's
  // own (a usage error, printed by commander), never JSON and without a stack.
  let json = false;
  let debug = deps.env.PM_DEBUG === '1';
  program.hook('preAction', (_root, cmd) => {
    active = cmd;
    const opts = cmd.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
    json = wantsJson(cmd.opts());
    debug ||= opts.debug === true;
    // The global flags, wherever they were given, resolved once for the whole run.
    f.resolveGlobals(opts);
    mark('arguments parsed');
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version (exit code 0) are not errors; commander has already printed them. A
      // command group without its subcommand (`pm properties`) printed its help to stderr: usage.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const e = err instanceof CliError ? err : (await import('./api-errors.js')).toCliError(err);
    // The pager first (what was written is read, then left with q), so that the message is not
    // written over its screen but after it.
    await f.close().catch(() => undefined);
    if (json) {
      const error: Record<string, unknown> = { message: e.message, exit_code: e.exitCode };
      if (e.status !== undefined) error.status = e.status;
      if (e.fields) error.errors = e.fields;
      if (e.hint) error.hint = e.hint;
      io.stderr.write(`${JSON.stringify({ error })}\n`);
    } else {
      // A message may quote a server's words: no control character reaches the terminal.
      let text = `error: ${visible(e.message)}\n`;
      for (const [field, messages] of Object.entries(e.fields ?? {}))
        for (const m of messages) text += `  ${visible(field)}: ${visible(m)}\n`;
      if (e.hint) text += `${visible(e.hint, true)}\n`;
      if (e.showUsage) text += `${usageHint(active)}\n`;
      io.stderr.write(text);
    }
    if (debug && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
    return e.exitCode;
  } finally {
    await f.close();
    mark('closed');
  }
}
