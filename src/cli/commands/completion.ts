/**
 * `pm completion <shell>` and `pm __complete`, declared: the completion scripts and the protocol
 * they speak are in completion-run.ts, loaded when one of them runs.
 */
import { Argument, type Command } from 'commander';
import type { Deps } from '../context.js';
import { CACHE_TTL_MS, SHELLS, type Shell } from './completion-limits.js';

/** The top-level commands this module adds, with their one-line summaries. */
export const COMPLETION_COMMANDS = { completion: 'Print the tab-completion script for bash, zsh or fish' };

export function registerCompletion(program: Command, deps: Deps): void {
  program
    .command('completion')
    .description(COMPLETION_COMMANDS.completion)
    .addArgument(new Argument('<shell>', 'the shell: bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
Completes commands, subcommands, flags, their values (formats, fields, codes, filters) and the
uuids of records, fetched from the API (cached for ${CACHE_TTL_MS / 1000} seconds, silent when the
server cannot be reached).

Install:
  bash   echo 'source <(pm completion bash)' >> ~/.bashrc
  zsh    echo 'source <(pm completion zsh)' >> ~/.zshrc        (after compinit)
         or: pm completion zsh > "\${fpath[1]}/_pm"
  fish   pm completion fish > ~/.config/fish/completions/pm.fish

Examples:
  source <(pm completion bash)
  pm properties get <TAB>          # your properties' uuids (zsh and fish show their addresses)
  pm properties list -o <TAB>      # table json ndjson csv tsv
  pm notes list --property-where <TAB>`,
    )
    .action(async (shell: Shell) => {
      const { completionScript } = await import('./completion-run.js');
      deps.io.stdout.write(completionScript(shell));
    });

  program
    .command('__complete', { hidden: true })
    .description('print the completions of a command line (used by the completion scripts)')
    .argument('[words...]', 'the words after "pm", the last one being completed')
    .helpOption(false)
    .allowUnknownOption()
    .action(async (words: string[], _opts: unknown, cmd: Command) => {
      const { complete, formatCompletions, NONE } = await import('./completion-run.js');
      let result = NONE;
      try {
        result = await complete(cmd.parent as Command, words.length ? words : [''], deps);
      } catch {
        // Completion is best effort: a failure completes nothing, and says nothing.
      }
      deps.io.stdout.write(formatCompletions(result));
    });
}
