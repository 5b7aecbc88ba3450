/** Where things are: the repository, the bench, the built CLI, and this Node. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH = join(ROOT, 'bench');
export const PM = join(ROOT, 'bin', 'pm');
export const DIST = join(ROOT, 'dist');
export const NODE = process.execPath;
export const TIME = '/usr/bin/time';
export const baseline = (name) => join(BENCH, 'baselines', name);
