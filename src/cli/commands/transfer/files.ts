/** The files of a pm export, named once for the commands' help and their runs, and how they are opened. */
import { constants, lstatSync, openSync } from 'node:fs';
import { DEPENDENCY_ORDER } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';

export const fileOf = (r: ResourceDef) => `${r.path}.ndjson`;

/** The old-to-new uuid map an import writes beside the files. */
export const MAP_FILE = 'uuid-map.json';

export const summary = (counts: Record<string, number>) =>
  DEPENDENCY_ORDER.map((r) => `${counts[r.path] ?? 0} ${counts[r.path] === 1 ? r.singular : r.plural}`).join(', ');

/**
 * A file of an export folder, opened for reading: its descriptor (the caller closes it),
 * undefined when there is none, `link` when it is a symbolic link, which is never followed
 * (O_NOFOLLOW, and lstat where the system has no such flag): a link planted among the files, or
 * swapped in while pm runs, would make pm read, and send, a file from anywhere. Whatever is read
 * of the file (checked, hashed, sent) is read through this one descriptor. `fail` words an error.
 */
export function openOwnFile(file: string, fail: (code: string) => Error): number | undefined | 'link' {
  const isLink = () => {
    try {
      return lstatSync(file).isSymbolicLink();
    } catch {
      return false;
    }
  };
  if (constants.O_NOFOLLOW === undefined && isLink()) return 'link';
  try {
    // O_NONBLOCK: a FIFO planted in its place is not waited on (the caller refuses what is not a file).
    return openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if ((code === 'ELOOP' || code === 'EMLINK') && isLink()) return 'link';
    throw fail(code ?? (e as Error).message);
  }
}
