/** Making commands apart from the program, for constructors that tests can call on their own. */
import { Command } from 'commander';

/** A command from "name <args>", as `.command()` takes it. */
export function commandOf(nameAndArgs: string): Command {
  const [name, ...args] = nameAndArgs.split(' ');
  const cmd = new Command(name);
  return args.length ? cmd.arguments(args.join(' ')) : cmd;
}

/**
 * Adds a command made on its own under `parent`, as `parent.command()` would have made it: with
 * the settings every command inherits (help flag, output, exit handling), down its whole tree.
 */
export function adopt(parent: Command, cmd: Command, opts: { hidden?: boolean } = {}): Command {
  const inherit = (from: Command, c: Command) => {
    c.copyInheritedSettings(from);
    for (const sub of c.commands) inherit(c, sub);
  };
  inherit(parent, cmd);
  parent.addCommand(cmd, opts);
  return cmd;
}

/** A command's run function, as its constructor takes it (a test passes one that records its options). */
export type Run<O> = (o: O) => Promise<void>;

/**
 * A command group: its name and summary, the help after its options (examples), and its leaf
 * commands adopted under it in order.
 */
export function group(name: string, description: string, leaves: readonly Command[], helpAfter?: string): Command {
  const cmd = new Command(name).description(description);
  if (helpAfter !== undefined) cmd.addHelpText('after', helpAfter);
  for (const leaf of leaves) adopt(cmd, leaf);
  return cmd;
}
