/**
 * Reading what a flag names, in one place: standard input, a file or - for stdin (--from-file,
 * --content-file), and a value given inline, as @file, or as - for stdin (--data). A file that
 * cannot be read is a usage error naming the flag.
 */
import { readFileSync } from 'node:fs';
import type { Deps } from './context.js';
import { usageError } from './errors.js';

/** All of standard input, as text. */
export async function readStdin(deps: Pick<Deps, 'io'>): Promise<string> {
  const chunks: string[] = [];
  for await (const c of deps.io.stdin) chunks.push(typeof c === 'string' ? c : c.toString('utf8'));
  return chunks.join('');
}

/** A file's text, or standard input's for "-". */
export async function readFileOrStdin(file: string, deps: Pick<Deps, 'io'>, flag: string): Promise<string> {
  if (file === '-') return readStdin(deps);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw usageError(`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
}

/**
 * A value given inline, as @file, or as - for stdin; with where it came from, for messages
 * (`--data @body.json`, `--data - (stdin)`).
 */
export async function readInline(
  value: string,
  deps: Pick<Deps, 'io'>,
  flag: string,
): Promise<{ text: string; where: string }> {
  if (value === '-') return { text: await readStdin(deps), where: `${flag} - (stdin)` };
  if (value.startsWith('@'))
    return { text: await readFileOrStdin(value.slice(1), deps, flag), where: `${flag} ${value}` };
  return { text: value, where: flag };
}
