/**
 * --jq, evaluated by jq itself (jq 1.7 compiled to WebAssembly, the `jq-web` package), so users
 * need no jq installed. Loaded only when --jq is given: the module and its wasm cost ~40 ms.
 */
import { createRequire } from 'node:module';
import { CliError, EXIT, usageError } from '../errors.js';

/** The part of jq-web we use: jq's stdout (undefined when it printed nothing); throws with `stderr` and `exitCode` when jq fails. */
type Jq = { raw(json: string, filter: string, flags?: string[]): string | undefined };

/** jq-web is CommonJS whose exports are a promise (require's cache keeps it): an ESM import would wrap it. */
const load = () => createRequire(import.meta.url)('jq-web') as Promise<Jq>;

/** Never evaluates the filter: compiling it is enough to find syntax errors and unknown names. */
const COMPILE_ONLY = 'empty as $__pm_check | ';

function jqMessage(err: unknown): { message: string; compile: boolean } {
  const e = err as { stderr?: unknown; exitCode?: unknown; message?: unknown };
  const text = typeof e.stderr === 'string' ? e.stderr : String(e.message ?? err);
  const errors = text
    .split('\n')
    .filter((l) => l.startsWith('jq: error'))
    .map((l) =>
      l
        .replace(/^jq: error( \(at [^)]*\))?: /, '')
        .replace(/:\s*$/, '')
        .replaceAll(COMPILE_ONLY, ''),
    );
  return { message: errors.length ? errors.join('; ') : text.trim(), compile: e.exitCode === 3 };
}

/**
 * Runs jq on one JSON text with -r: each result on its own line, strings raw, other values
 * compact JSON (as `gh --jq` does). Returns the output, ending in a newline unless empty.
 */
async function evaluate(json: string, filter: string, onStderr: (text: string) => void): Promise<string> {
  const jq = await load();
  // jq-web leaves its exit status in process.exitCode and reports jq's own stderr (debug,
  // stderr) with console.warn: keep the first and route the second to our stderr.
  const exitCode = process.exitCode;
  const warn = console.warn;
  console.warn = (...args: unknown[]) => onStderr(`${String(args[args.length - 1])}\n`);
  try {
    const out = jq.raw(json, filter, ['-r', '-c']);
    return out === undefined ? '' : `${out}\n`;
  } catch (err) {
    const { message, compile } = jqMessage(err);
    if (compile) throw usageError(`--jq: ${message}.`);
    throw new CliError(EXIT.usage, `--jq: ${message}.`, { cause: err });
  } finally {
    console.warn = warn;
    process.exitCode = exitCode;
  }
}

/** Loads jq and compiles the filter, so a mistake is reported before any request is made. */
export async function checkJq(filter: string): Promise<void> {
  await evaluate('null', COMPILE_ONLY + filter, () => {});
}

/** Applies the filter to a value and returns the text to print. */
export function runJq(value: unknown, filter: string, onStderr: (text: string) => void): Promise<string> {
  return evaluate(JSON.stringify(value === undefined ? null : value), filter, onStderr);
}
