/**
 * luxon, loaded on first use: it costs start-up to every command that reads no date, so the
 * modules that parse dates take it from here rather than importing it.
 */
import { createRequire } from 'node:module';
import type * as Luxon from 'luxon';

let loaded: typeof Luxon | undefined;

export function luxon(): typeof Luxon {
  loaded ??= createRequire(import.meta.url)('luxon') as typeof Luxon;
  return loaded;
}
