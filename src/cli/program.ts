/**
 * The commander program: global options, and a command per resource derived from the
 * descriptions, plus api, auth, config and serve. Building it loads no command's logic: each
 * action imports what it needs when it runs.
 */
import { Command } from 'commander';
import { RESOURCE_WORDS } from '../resources/index.js';
import type { Factory } from './factory.js';
import { ROOT_HELP } from './help/root.js';
import { version } from './version.js';
import { API_COMMANDS, registerApi } from './commands/api/api.js';
import { AUTH_COMMANDS, registerAuth } from './commands/auth/auth.js';
import { COMPLETION_COMMANDS, registerCompletion } from './commands/completion/completion.js';
import { CONFIG_COMMANDS, registerConfig } from './commands/config/config.js';
import { registerResources } from './commands/resource/resource.js';
import { registerServe, SERVE_COMMANDS } from './commands/serve/serve.js';
import { registerHelp } from './help/index.js';
import { registerTransfer, TRANSFER_COMMANDS } from './commands/transfer/transfer.js';

/** The commands besides the resources', by module: their names and summaries, and how to build them. */
const GROUPS: readonly [Readonly<Record<string, string>>, (program: Command, f: Factory) => void][] = [
  [API_COMMANDS, registerApi],
  [AUTH_COMMANDS, registerAuth],
  [CONFIG_COMMANDS, registerConfig],
  [TRANSFER_COMMANDS, registerTransfer],
  [SERVE_COMMANDS, registerServe],
  [COMPLETION_COMMANDS, registerCompletion],
];

/**
 * The command words of a run, before its first option of a command: `pm --profile x properties
 * list` -> ["properties", "list"]. Enough to tell which command group a run uses. The word after
 * a global option that takes a value (--profile x) is not a command.
 */
function commandWords(program: Command, argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (program.options.some((o) => o.required && o.long === a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}

/**
 * The program. With `argv`, only the command group the run names is built in full (plus the one
 * `pm help <group>` names); completion, which walks the whole tree, and a call without argv get
 * every command. A run naming no command builds every group but the resources' (the root help).
 */
export function buildProgram(f: Factory, argv?: readonly string[]): Command {
  const { io } = f;
  const program = new Command('pm');
  program
    .description(`Work with the records of a property-management account: ${RESOURCE_WORDS}`)
    .version(version(), '-V, --version', 'print the version')
    .option('--base-url <url>', 'the API base URL (default: PM_BASE_URL, config, else the embedded default)')
    .option('--profile <name>', 'the configuration profile to use (default: PM_PROFILE, config, else "default")')
    .option('--no-color', 'no colour in output (also NO_COLOR)')
    .option('--no-input', 'never prompt; fail instead where an answer is needed (also CI=true)')
    .option('--no-pager', 'never page long output on a terminal (also PM_PAGER=cat)')
    .option('--debug', 'show the HTTP exchange and stack traces on stderr (tokens redacted)')
    .option('--timeout <seconds>', 'give up on a connection or an answer that takes longer (default: config, else 30)')
    .option(
      '--retries <n>',
      'times to retry a request that failed on the way (default 3; a create only under its idempotency key, or if unsent)',
    )
    .option('--allow-insecure-http', 'send the token over plain http to a host that is not this machine')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand('help [command]', 'show help for a command')
    .addHelpText('after', ROOT_HELP);

  const words = argv ? commandWords(program, argv) : undefined;
  const only =
    words && words[0] !== '__complete' ? new Set(words[0] === 'help' ? words.slice(1) : words.slice(0, 1)) : undefined;
  // `pm properties list`: that verb alone (not under `pm help`, which shows the whole group).
  registerResources(program, f, only, words?.[0] !== 'help' && words?.[0] !== '__complete' ? words?.[1] : undefined);
  // A group the run does not name is its name and summary alone (enough for "did you mean").
  for (const [commands, register] of GROUPS) {
    const names = Object.keys(commands);
    if (!only?.size || names.some((n) => only.has(n))) register(program, f);
    else for (const n of names) program.command(n).description(commands[n] as string);
  }
  registerHelp(program, f);

  // Every command reports usage errors the same way, and never exits by itself.
  const visit = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    cmd.showHelpAfterError(usageHint(cmd));
    for (const sub of cmd.commands) visit(sub);
  };
  visit(program);
  return program;
}

/**
 * The line after a usage error, commander's or a command's own: "Run 'pm properties list --help'
 * for usage." (one line, not the whole help: at 80x24 the error would scroll away under it).
 */
export function usageHint(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  return `Run '${words.join(' ')} --help' for usage.`;
}
