/**
 * The one place that turns what happened into output and an exit code. Commands throw; run()
 * catches, prints one clear message (as JSON with --json), and returns the code.
 */
import { CommanderError } from 'commander';
import type { Deps } from './context.js';
import { visible } from '../core/redact.js';
import { MissingDriverError } from '../core/errors.js';
import { CliError, EXIT, missingDriver } from './errors.js';
import { createFactory } from './factory.js';
import { mark } from '../core/timing.js';
import type { GlobalOptions } from './globals.js';
import { buildProgram, usageHint } from './program.js';

/*
 * The two places argv is read besides commander (and program.ts's commandWords, which picks the
 * command group to build before commander runs): an error can come before or while commander
 * parses, when no command's options exist yet, and it must still be JSON with --json and carry
 * its stack with --debug.
 */
function wantsJson(argv: readonly string[]): boolean {
  return (
    argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '-o=json' || a === '--output=json') ||
    argv.some((a, i) => (a === '-o' || a === '--output') && (argv[i + 1] === 'json' || argv[i + 1] === 'ndjson'))
  );
}

function wantsDebug(argv: readonly string[], deps: Deps): boolean {
  return argv.includes('--debug') || deps.env.PM_DEBUG === '1';
}

export async function run(argv: readonly string[], deps: Deps): Promise<number> {
  const { io } = deps;
  const f = createFactory(deps);
  const program = buildProgram(f, argv);
  mark('program built');
  let active = program;
  program.hook('preAction', (_root, cmd) => {
    active = cmd;
    // The global flags, wherever they were given, resolved once for the whole run.
    f.resolveGlobals(cmd.optsWithGlobals() as GlobalOptions);
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
    const e = err instanceof CliError ? err : toCliError(err);
    // The pager first (what was written is read, then left with q), so that the message is not
    // written over its screen but after it.
    await f.close().catch(() => undefined);
    if (wantsJson(argv)) {
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
    if (wantsDebug(argv, deps) && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
    return e.exitCode;
  } finally {
    await f.close();
    mark('closed');
  }
}

function toCliError(err: unknown): CliError {
  if (err instanceof Error && err.name === 'AbortError') return new CliError(EXIT.interrupted, 'interrupted');
  if (err instanceof MissingDriverError) return missingDriver(err, 'this command');
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(EXIT.api, message, { cause: err });
}
