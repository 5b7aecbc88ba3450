/**
 * luxon, loaded on first use: it costs start-up to every command that reads no date, so the
 * modules that parse dates take it from here rather than importing it.
 */
import { createRequire } from 'node:module';
import type * as Luxon from 'luxon';
import { mark } from './timing.js';

let loaded: typeof Luxon | undefined;

export function luxon(): typeof Luxon {
  if (!loaded) {
    loaded = createRequire(import.meta.url)('luxon') as typeof Luxon;
    // pm speaks English, and writes dates as en-GB does (output/format.ts). Left to find the
    // system's locale, luxon asks Intl for it on its first date, which loads ICU's locale data:
    // tens of milliseconds, even to read an ISO date.
    loaded.Settings.defaultLocale = 'en-GB';
    // PM_TIMING shows which runs pay for it (test/cli/startup.test.ts: not a create with an ISO date).
    mark('luxon loaded');
  }
  return loaded;
}
