/**
 * The commander program: global options, and a command per resource derived from the
 * descriptions, plus api, auth, config and serve. Building it loads no command's logic: each
 * action imports what it needs when it runs.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { Deps } from './context.js';
import { registerApi } from './commands/api.js';
import { registerAuth } from './commands/auth.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerResources } from './commands/resource.js';
import { registerServe } from './commands/serve.js';
import { registerHelp } from './help/index.js';
import { registerTransfer } from './commands/transfer.js';

let cachedVersion: string | undefined;

/** pm's version, from its package.json: two folders up from src/cli, dist/cli and dist/bundle alike. */
export function version(): string {
  cachedVersion ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return cachedVersion;
}

export const ROOT_HELP = `
Nothing configured? pm runs on its embedded default: the bundled server on a local SQLite file
($XDG_DATA_HOME/pm/pm.db, else ~/.local/share/pm/pm.db), with the token it created. See
"pm auth status" for where the data lives and which server pm talks to.

Examples:
  pm properties create --address "1 High St" --postcode "LS1 1AA" --city Leeds
  pm properties list --city leeds --bedrooms 3
  pm reminders list --due-at P7D --json title,due_at
  uuid=$(pm reminders create --title "Gas check" --due-at 2026-12-01 -q)

Learn more:
  pm <command> --help   a command's flags and examples (or: pm help <command>)
  pm help <topic>       dates, filters, output, configuration, exit-codes
  pm completion bash    tab completion for bash (also zsh, fish)

Environment:
  PM_BASE_URL     the API's base URL (default: the embedded default)
  PM_TOKEN        the API token (never pass a token as a flag)
  PM_PROFILE      the configuration profile to use
  PM_DATA_FILE    the embedded default's data file (default: XDG_DATA_HOME/pm/pm.db)
  PM_DEBUG        when "1", stack traces on errors (as --debug)
  HTTPS_PROXY     proxy for https requests (also HTTP_PROXY; NO_PROXY lists hosts to reach directly)
  NODE_EXTRA_CA_CERTS  a PEM file of extra certificate authorities to trust (TLS is always verified)
  NO_COLOR        no colour; FORCE_COLOR=1 forces it
  CI              when "true" or "1", pm never prompts (as --no-input)
  XDG_CONFIG_HOME where the user config lives (pm/config.json)
  XDG_DATA_HOME   where the embedded default keeps its data (pm/pm.db)
  XDG_CACHE_HOME  caches: uuids for tab completion (pm/completion), compiled code (pm/v8)

Exit codes:
  0   success (an empty list too)
  1   the API refused the request or failed
  2   usage error: a flag or argument was wrong; nothing was sent
  3   not found
  4   authentication or permission
  5   could not reach the server, it timed out, or it is unavailable (502, 503, 504)
  130 interrupted
`;

export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  color: boolean;
  input: boolean;
  debug?: boolean;
  timeout?: string;
  retries?: string;
  allowInsecureHttp?: boolean;
}

/** Global options that take a value: the word after them is not a command. */
const VALUED_GLOBALS = new Set(['--base-url', '--profile', '--timeout', '--retries']);

/**
 * The command words of a run, before its first option of a command: `pm --profile x properties
 * list` -> ["properties", "list"]. Enough to tell which command group a run uses.
 */
function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUED_GLOBALS.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}

/**
 * The program. With `argv`, only the command group the run names is built in full (plus the one
 * `pm help <group>` names); completion, which walks the whole tree, and a call without argv get
 * every command.
 */
export function buildProgram(deps: Deps, argv?: readonly string[]): Command {
  const { io } = deps;
  const program = new Command('pm');
  program
    .description(
      'Work with the records of a property-management account: properties, contacts, custom fields, notes and reminders',
    )
    .version(version(), '-V, --version', 'print the version')
    .option('--base-url <url>', 'the API base URL (default: PM_BASE_URL, config, else the embedded default)')
    .option('--profile <name>', 'the configuration profile to use (default: PM_PROFILE, config, else "default")')
    .option('--no-color', 'no colour in output (also NO_COLOR)')
    .option('--no-input', 'never prompt; fail instead where an answer is needed (also CI=true)')
    .addOption(new Option('--debug', 'show the HTTP exchange and stack traces on stderr (tokens redacted)'))
    .option('--timeout <seconds>', 'give up on a connection or an answer that takes longer (default: config, else 30)')
    .option('--retries <n>', 'times to retry a request that failed on the way (default 3; a create only if unsent)')
    .option('--allow-insecure-http', 'send the token over plain http to a host that is not this machine')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand('help [command]', 'show help for a command')
    .addHelpText('after', ROOT_HELP)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  const words = argv ? commandWords(argv) : undefined;
  const only =
    words && words[0] !== '__complete' ? new Set(words[0] === 'help' ? words.slice(1) : words.slice(0, 1)) : undefined;
  registerResources(program, deps, only);
  registerApi(program, deps);
  registerAuth(program, deps);
  registerConfig(program, deps);
  registerTransfer(program, deps);
  registerServe(program, deps);
  registerCompletion(program, deps);
  registerHelp(program, deps);

  // Every command reports usage errors the same way, and never exits by itself.
  const visit = (cmd: Command, path: string): void => {
    cmd.exitOverride();
    cmd.showSuggestionAfterError(true);
    cmd.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    cmd.showHelpAfterError(`Run '${path} --help' for usage.`);
    for (const sub of cmd.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, 'pm');
  return program;
}

/** The global options as seen from a command. */
export function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}
