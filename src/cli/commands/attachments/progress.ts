/**
 * A progress bar of bytes for an upload or a download: on stderr, only when stderr is a terminal
 * and the file is more than a few MB (never in a pipe or a log). cli-progress is loaded then alone.
 */
import { visible } from '../../../core/redact.js';
import type { Deps } from '../../context.js';

/** Files smaller than this are sent or fetched without a bar: they take a moment. */
const PROGRESS_FROM_BYTES = 8 * 1024 * 1024;

interface Progress {
  add(bytes: number): void;
  stop(): void;
}

const NONE: Progress = { add() {}, stop() {} };

export async function byteProgress(
  deps: Pick<Deps, 'io'>,
  label: string,
  total: number | undefined,
): Promise<Progress> {
  const stream = deps.io.stderr;
  if (!stream.isTTY || total === undefined || total < PROGRESS_FROM_BYTES) return NONE;
  const { SingleBar } = await import('cli-progress');
  const mib = (n: number) => (n / 1048576).toFixed(1);
  const bar = new SingleBar({
    stream: stream as unknown as NodeJS.WritableStream,
    format: `{label} {bar} {done}/{size} MiB  {speed} MiB/s`,
    barsize: 24,
    hideCursor: false,
    clearOnComplete: true,
    fps: 5,
  });
  const started = performance.now();
  let done = 0;
  // A file's name (a server's, or one from disk) drawn on the terminal: made visible first.
  bar.start(total, 0, { label: visible(label), done: '0.0', size: mib(total), speed: '0.0' });
  return {
    add(bytes) {
      done += bytes;
      const secs = Math.max(0.001, (performance.now() - started) / 1000);
      bar.update(done, { done: mib(done), speed: mib(done / secs) });
    },
    stop() {
      bar.stop();
    },
  };
}
