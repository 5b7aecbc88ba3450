/**
 * `pm <files resource> upload FILE... (--property U | --contact U)`, declared: flags and how they
 * combine; the work is in upload-run.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import { aOr } from '../../../core/words.js';
import { resourceByPath } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { checkName, optKey } from '../../flags.js';
import type { UploadOptions } from './upload-run.js';

type Flags = Record<string, string | boolean | undefined>;

export function newCmdUpload(
  f: Factory,
  r: ResourceDef,
  runF: Run<UploadOptions> = async (o) => (await import('./upload-run.js')).uploadRun(o),
): Command {
  const parents = r.parents ?? [];
  const names = parents.map((p) => `--${p.name}`).join(' or ');
  const cmd = commandOf('upload <file...>').description(
    `Upload files as ${r.plural} of ${parents.map((p) => aOr(resourceByPath(p.target).singular)).join(' or ')}`,
  );
  for (const p of parents) cmd.option(`--${p.name} <uuid>`, `the ${resourceByPath(p.target).singular} they belong to`);
  cmd
    .option('--name <name>', 'the name to keep it under (one file; needed for - , standard input)')
    .option('--description <text>', 'what the file is')
    .option('--expires <date>', 'the day it expires, for a certificate: 2027-03-01, "in 1 year", "next march"')
    .option(
      '--skip-existing',
      'skip a file whose name and SHA-256 are already on that record (a re-run uploads nothing twice)',
    )
    .option('--json', `print each new ${r.singular} as a JSON line`)
    .option('-q, --quiet', `print only the uuid of each new ${r.singular}, nothing on stderr`)
    .addHelpText(
      'after',
      `
A file is sent as it is read, never held whole; a progress bar shows on a terminal for a file of
more than a few MB. An upload cut off is never sent again on its own (it may have arrived): run
it again with --skip-existing.

Examples:
  pm ${r.path} upload gas-safety.pdf --property 3f2a9c1e --description "Gas safety certificate 2026"
  pm ${r.path} upload gas-safety.pdf --property 3f2a9c1e --expires 2027-03-01
  pm ${r.path} upload lease.pdf inventory.pdf --property 3f2a9c1e --skip-existing
  echo "Meter reading: 04512" | pm ${r.path} upload - --name meter.txt --contact 7b1d0c55`,
    );
  return cmd.action((files: string[], flags: Flags) => {
    const given = parents.filter((p) => flags[optKey(p.name)] !== undefined);
    const [p, ...more] = given;
    if (!p || more.length)
      throw usageError(p ? `give only one of ${names}.` : `${aOr(r.singular)} belongs to a record: give ${names}.`);
    const stdin = files.filter((x) => x === '-').length;
    const name = typeof flags.name === 'string' ? flags.name : undefined;
    if (stdin > 1) throw usageError('- (standard input) can be given once.');
    if (stdin && name === undefined) throw usageError('- (standard input) has no file name: give --name.');
    if (name !== undefined && files.length > 1) throw usageError('--name names one file: give one file with it.');
    if (flags.quiet === true && flags.json === true) throw usageError('--json and --quiet cannot be used together.');
    if (stdin && flags.skipExisting === true)
      throw usageError('--skip-existing compares files before they are sent: it cannot read - (standard input) twice.');
    return runF({
      f,
      resource: r,
      files,
      parent: {
        resource: resourceByPath(p.target),
        uuid: checkName(resourceByPath(p.target), String(flags[optKey(p.name)]), `--${p.name}`),
      },
      name,
      description: typeof flags.description === 'string' ? flags.description : undefined,
      expires: typeof flags.expires === 'string' ? flags.expires : undefined,
      skipExisting: flags.skipExisting === true,
      json: flags.json === true,
      quiet: flags.quiet === true,
    });
  });
}
