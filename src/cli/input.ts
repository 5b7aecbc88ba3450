/**
 * Reading what a flag names, in one place: standard input, a file or - for stdin (--from-file,
 * --content-file), and a value given inline, as @file, or as - for stdin (--data). A file that
 * cannot be read is a usage error naming the flag.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Deps } from './context.js';
import { usageError } from './errors.js';

/** All of standard input, as text. */
export async function readStdin(deps: Pick<Deps, 'io'>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of deps.io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : c);
  return utf8(Buffer.concat(chunks), 'standard input');
}

/** A file's text, or standard input's for "-". */
export async function readFileOrStdin(file: string, deps: Pick<Deps, 'io' | 'cwd'>, flag: string): Promise<string> {
  if (file === '-') return readStdin(deps);
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(deps.cwd, file));
  } catch (e) {
    throw usageError(`${flag}: cannot read ${file}: ${whyUnreadable(e)}.`);
  }
  return utf8(bytes, `${flag} ${file}`);
}

/** Why a file could not be opened or read, in words ("there is no such file"); the system's message otherwise. */
export function whyUnreadable(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'there is no such file';
    case 'ENOTDIR':
      return 'a part of its path is not a folder';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'its symbolic links go round in a loop';
    default:
      return (e as Error).message;
  }
}

/** Text that must be UTF-8: bytes that are not (a Latin-1 file, say) are an error naming the line. */
function utf8(bytes: Buffer, where: string): string {
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(bytes)) {
    const line = text.slice(0, text.indexOf('\uFFFD')).split('\n').length;
    throw usageError(`${where} line ${line}: not UTF-8 text; save the file as UTF-8 and try again.`);
  }
  return text;
}

/**
 * A value given inline, as @file, or as - for stdin; with where it came from, for messages
 * (`--data @body.json`, `--data - (stdin)`).
 */
export async function readInline(
  value: string,
  deps: Pick<Deps, 'io' | 'cwd'>,
  flag: string,
): Promise<{ text: string; where: string }> {
  if (value === '-') return { text: await readStdin(deps), where: `${flag} - (stdin)` };
  if (value.startsWith('@'))
    return { text: await readFileOrStdin(value.slice(1), deps, flag), where: `${flag} ${value}` };
  return { text: value, where: flag };
}
