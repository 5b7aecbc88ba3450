/**
 * `pm __complete [words...]`, hidden: the completions of a command line, for the completion
 * scripts. It has no help flag (`--help` is a word to complete): registerCompletion turns it off
 * once the command is adopted, since adopting copies the program's.
 */
import { Command } from 'commander';
import type { Deps } from '../../context.js';

export function newCmdComplete(deps: Deps): Command {
  return new Command('__complete')
    .description('print the completions of a command line (used by the completion scripts)')
    .argument('[words...]', 'the words after "pm", the last one being completed')
    .allowUnknownOption()
    .action(async (words: string[], _opts: unknown, cmd: Command) => {
      const { complete, formatCompletions, NONE } = await import('./complete-run.js');
      let result = NONE;
      try {
        result = await complete(cmd.parent as Command, words.length ? words : [''], deps);
      } catch {
        // Completion is best effort: a failure completes nothing, and says nothing.
      }
      deps.io.stdout.write(formatCompletions(result));
    });
}
