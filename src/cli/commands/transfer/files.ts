/** The files of a pm export, named once for the commands' help and their runs. */
import { DEPENDENCY_ORDER } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';

export const fileOf = (r: ResourceDef) => `${r.path}.ndjson`;

/** The old-to-new uuid map an import writes beside the files. */
export const MAP_FILE = 'uuid-map.json';

export const summary = (counts: Record<string, number>) =>
  DEPENDENCY_ORDER.map((r) => `${counts[r.path] ?? 0} ${counts[r.path] === 1 ? r.singular : r.plural}`).join(', ');
