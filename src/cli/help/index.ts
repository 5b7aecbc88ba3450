/**
 * `pm help [topic | command...]`: pages on dates, filters, output, input, configuration and exit codes,
 * and commander's help for any command (`pm help properties list` is `pm properties list --help`).
 *
 * Only the names and one-line summaries of the topics live here: a topic's text is in its own
 * module, imported when it is asked for, so that building the program loads none of them.
 */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { similar } from '../suggest.js';
import { commas, wrap } from './text.js';

interface Topic {
  readonly name: string;
  /** Other words that find it: `pm help date`, `pm help json`. */
  readonly aliases: readonly string[];
  readonly summary: string;
  /** The page, as printed (ending with a line break). */
  readonly load: () => Promise<string>;
}

export const TOPICS: readonly Topic[] = [
  {
    name: 'dates',
    aliases: ['date', 'time', 'times', 'datetimes', 'durations'],
    summary: 'every date, datetime, interval and duration pm accepts, with examples',
    load: async () => (await import('./dates.js')).datesTopic(),
  },
  {
    name: 'filters',
    aliases: ['filter', 'where', 'search'],
    summary: 'list filters: text, numbers, dates, --property-where, custom fields',
    load: async () => (await import('./filters.js')).filtersTopic(),
  },
  {
    name: 'output',
    aliases: ['formats', 'format', 'json', 'jq', 'csv'],
    summary: 'tables, --json, -o json|ndjson|csv|tsv, --fields, -q and --jq',
    load: async () => (await import('./output.js')).outputTopic(),
  },
  {
    name: 'input',
    aliases: ['blank', 'blanks', 'empty', 'values', 'from-file'],
    summary: 'what a blank flag, CSV cell or JSON value does: clears a field, or is refused',
    load: async () => (await import('./input.js')).inputTopic(),
  },
  {
    name: 'configuration',
    aliases: ['configure', 'environment', 'env', 'profiles', 'profile'],
    summary: 'where pm points: flags, environment, project and user config, profiles',
    load: async () => (await import('./configuration.js')).configurationTopic(),
  },
  {
    name: 'exit-codes',
    aliases: ['exit', 'exitcodes', 'exit-code', 'errors'],
    summary: 'what each exit code means, for scripts and CI jobs',
    load: async () => (await import('./exit-codes.js')).exitCodesTopic(),
  },
];

function findTopic(word: string): Topic | undefined {
  const w = word.toLowerCase();
  return TOPICS.find((t) => t.name === w || t.aliases.includes(w));
}

/** The command a path of words names, from `root`: undefined when a word names nothing. */
export function commandAt(root: Command, words: readonly string[]): Command | undefined {
  let cmd: Command | undefined = root;
  for (const w of words) {
    cmd = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!cmd) return undefined;
  }
  return cmd;
}

/** Hidden commands (`pm __complete`) are neither listed nor suggested. */
export const isHidden = (c: Command): boolean => (c as unknown as { _hidden?: boolean })._hidden === true;

/** The root's options, named at the end of every other command's help: they work everywhere. */
function globalOptionsLine(program: Command): string {
  // Named as declared: none but --version (left out) has a short form.
  const names = program.options.filter((o) => !o.hidden && o.long !== '--version').map((o) => o.flags);
  return `\n${wrap(commas(names), 80, 'Global options (see pm --help):', '  ')}`;
}

export function registerHelp(program: Command, deps: Deps): void {
  // The root's help is this command; subcommands keep commander's own (`pm properties help list`).
  program.helpCommand(false);
  program.addHelpText('afterAll', ({ command }) => (command === program ? '' : globalOptionsLine(program)));
  program
    .command('help')
    .description('Show help for a command, or a page on a topic (dates, filters, output, ...)')
    .argument('[topic-or-command...]', 'a topic, or a command path such as "properties list"')
    .addHelpText(
      'after',
      () => `
Topics:
${TOPICS.map((t) => `  pm help ${t.name.padEnd(15)} ${t.summary}`).join('\n')}

Examples:
  pm help dates
  pm help properties list        # the same as: pm properties list --help
  pm help filters | less`,
    )
    .action(async (words: string[], _opts: unknown, cmd: Command) => {
      const root = cmd.parent as Command;
      // No words: the root's help.
      const target = commandAt(root, words);
      if (target) {
        target.outputHelp();
        return;
      }
      const topic = words.length === 1 ? findTopic(words[0] as string) : undefined;
      if (topic) {
        deps.io.stdout.write(await topic.load());
        return;
      }
      // Name what was not found, and what is near it.
      let i = 0;
      while (i < words.length - 1 && commandAt(root, words.slice(0, i + 1))) i++;
      const parent = commandAt(root, words.slice(0, i)) as Command;
      const word = words[i] as string;
      const names = parent.commands.filter((c) => !isHidden(c)).map((c) => c.name());
      const near = similar(word, i === 0 ? [...names, ...TOPICS.map((t) => t.name)] : names);
      const what = i === 0 ? `help topic or command "${word}"` : `command "pm ${words.slice(0, i + 1).join(' ')}"`;
      throw new CliError(EXIT.usage, `no ${what}.`, {
        hint: `${near.length ? `(Did you mean ${near.join(' or ')}?)\n` : ''}Topics: ${TOPICS.map((t) => t.name).join(', ')}. Commands: pm --help.`,
      });
    });
}
