/**
 * The server compiled from src/server into a temporary directory, for tests whose child processes
 * run it: they never depend on a stale dist/ or on the rest of the project compiling.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

export interface BuiltServer {
  /** file: URL of the compiled src/server/index.ts, for a child's import(). */
  readonly module: string;
  remove(): void;
}

/** Compiles src/server/index.ts and, beside it, the other entries given (paths under src/server). */
export function buildServer(prefix = 'pm-build-', entries: readonly string[] = []): BuiltServer {
  const build = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'), 'dir');
  writeFileSync(join(build, 'package.json'), '{"type": "module"}\n');
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      join(ROOT, 'src/server/index.ts'),
      ...entries.map((e) => join(ROOT, 'src/server', e)),
      ...['--outDir', join(build, 'dist'), '--rootDir', join(ROOT, 'src')],
      ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'],
      ...['--skipLibCheck', '--types', 'node', '--esModuleInterop', '--strict'],
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  return {
    module: pathToFileURL(join(build, 'dist/server/index.js')).href,
    remove: () => rmSync(build, { recursive: true, force: true }),
  };
}
