/** pm's version, from its package.json (read once, on first use). */
import { readFileSync } from 'node:fs';

let cachedVersion: string | undefined;

/** pm's version, from its package.json: two folders up from src/cli, dist/cli and dist/bundle alike. */
export function version(): string {
  cachedVersion ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return cachedVersion;
}
