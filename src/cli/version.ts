/** pm's version, from its package.json (read once, on first use). */
import { readFileSync } from 'node:fs';

/** The version the bundle was built at (esbuild.config.mjs defines it): no file to read on a run. */
declare const __PM_VERSION__: string | undefined;

let cachedVersion: string | undefined;

/** pm's version, from its package.json: two folders up from src/cli, dist/cli and dist/bundle alike. */
export function version(): string {
  cachedVersion ??=
    typeof __PM_VERSION__ === 'string'
      ? __PM_VERSION__
      : (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
          .version;
  return cachedVersion;
}
