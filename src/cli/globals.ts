/**
 * The global options: given before or after a command's own (`pm --profile x properties list`,
 * `pm properties list --profile x`), read from a command with globalsOf.
 */
import type { Command } from 'commander';

export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  color: boolean;
  input: boolean;
  /** false with --no-pager. */
  pager?: boolean;
  debug?: boolean;
  timeout?: string;
  retries?: string;
  allowInsecureHttp?: boolean;
}

/** The global options as seen from a command. */
export function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}
