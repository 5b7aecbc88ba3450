/**
 * A pager for long output on a terminal, as git and gh have: PM_PAGER, else PAGER, else `less`
 * (with LESS=FRX unless LESS is set: it quits at once when the output fits one screen, keeps
 * colour, and leaves the screen as it was). Never when stdout is not a terminal, with --no-pager,
 * or when the pager is set to "" or "cat". A pager that cannot start is passed over silently.
 */
import type { Deps, OutStream } from './context.js';

export interface Pager {
  /** What the command writes to instead of stdout: a terminal, as far as the output knows. */
  readonly stdout: OutStream;
  /** Ends the output and waits for the person to leave the pager. */
  close(): Promise<void>;
}

export async function startPager(deps: Pick<Deps, 'env' | 'io'>, enabled: boolean): Promise<Pager | undefined> {
  if (!enabled || deps.io.stdout.isTTY !== true) return undefined;
  const command = (deps.env.PM_PAGER ?? deps.env.PAGER ?? 'less').trim();
  if (command === '' || command === 'cat') return undefined;
  const { spawn } = await import('node:child_process');
  const env = { ...deps.env, LESS: deps.env.LESS ?? 'FRX', LV: deps.env.LV ?? '-c' };
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'inherit', 'inherit'], env });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!started) return undefined;
  let open = true;
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void exited.then(() => {
    open = false;
  });
  // Leaving the pager before the end (q) closes the pipe: what is left to write goes nowhere.
  child.stdin.on('error', () => {
    open = false;
  });
  return {
    stdout: {
      isTTY: true,
      columns: deps.io.stdout.columns,
      write: (chunk: string) => (open ? child.stdin.write(chunk) : true),
    },
    async close() {
      if (open) child.stdin.end();
      await exited;
    },
  };
}
