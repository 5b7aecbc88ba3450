/**
 * `pm <files resource> download UUID... [--to FILE|-] [--dir D] [--clobber]`, declared: flags and
 * how they combine; the work is in download-run.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { checkName } from '../../flags.js';
import type { DownloadOptions } from './download-run.js';

type Flags = { to?: string; dir?: string; clobber?: boolean };

export function newCmdDownload(
  f: Factory,
  r: ResourceDef,
  runF: Run<DownloadOptions> = async (o) => (await import('./download-run.js')).downloadRun(o),
): Command {
  return commandOf('download <uuid...>')
    .description(`Download the files of ${r.plural}, each checked against its size and SHA-256`)
    .option('--to <file>', 'write the one file here (- for standard output, never a terminal)')
    .option('--dir <dir>', 'write the files into this directory, each under its own name (default: here)')
    .option('--clobber', 'overwrite a file that is there already')
    .addHelpText(
      'after',
      `
A file is written to a temporary file beside its place, checked (size and SHA-256), and only
then renamed into place: an interrupted or damaged download leaves nothing behind, and an
existing file is never overwritten without --clobber. With --to -, the bytes go to standard
output (into a pipe or a file: never to a terminal), and a mismatch is reported at the end.
With --dir, a file is named after its record: the last part of its name, without control or
bidi characters, at most 255 bytes (its extension kept), or its uuid when no name is left; it
is never written outside the directory. No more bytes are read than the record says.

Examples:
  pm ${r.path} download 5c1d7e2a
  pm ${r.path} download 5c1d7e2a --dir ./certificates --clobber
  pm ${r.path} download 5c1d7e2a --to lease.pdf`,
    )
    .action((uuids: string[], flags: Flags) => {
      if (flags.to !== undefined && flags.dir !== undefined) throw usageError('give --to or --dir, not both.');
      if (flags.to !== undefined && uuids.length > 1)
        throw usageError('--to names one file: give one uuid with it, or --dir for several.');
      return runF({
        f,
        resource: r,
        uuids: uuids.map((u) => checkName(r, u, '<uuid>')),
        to: flags.to,
        dir: flags.dir,
        clobber: flags.clobber === true,
      });
    });
}
