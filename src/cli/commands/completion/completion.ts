/**
 * `pm completion <shell>` and the hidden `pm __complete` the scripts call, declared; the scripts
 * and the protocol they speak are loaded when one of them runs.
 */
import { Argument, Command } from 'commander';
import { adopt, type Run } from '../../command.js';
import type { Deps } from '../../context.js';
import { newCmdComplete } from './complete.js';
import { CACHE_TTL_MS, SHELLS, type Shell } from './limits.js';

/** The top-level commands this module adds, with their one-line summaries. */
export const COMPLETION_COMMANDS = { completion: 'Print the tab-completion script for bash, zsh or fish' };

interface CompletionOptions {
  readonly f: Deps;
  readonly shell: Shell;
}

const RUN = async (o: CompletionOptions) => {
  const { completionScript } = await import('./completion-run.js');
  o.f.io.stdout.write(completionScript(o.shell));
};

function newCmdCompletion(f: Deps, run: Run<CompletionOptions> = RUN): Command {
  return new Command('completion')
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
    .action((shell: Shell) => run({ f, shell }));
}

export function registerCompletion(program: Command, deps: Deps): void {
  adopt(program, newCmdCompletion(deps));
  adopt(program, newCmdComplete(deps), { hidden: true }).helpOption(false);
}
