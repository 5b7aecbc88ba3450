/**
 * What a command needs from the outside world, injected so that tests run commands in-process
 * with string buffers, a fixed clock and an environment of their own.
 */

export interface OutStream {
  /** false when the chunk was queued behind others: wait for 'drain' before the next (bytes). */
  write(chunk: string | Uint8Array): unknown;
  once?(event: 'drain', listener: () => void): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

interface InStream extends AsyncIterable<Buffer | string> {
  readonly isTTY?: boolean | undefined;
}

export interface IO {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Asks the person at the terminal; absent when nobody can answer. */
export interface Prompter {
  confirm(question: string): Promise<boolean>;
  secret(question: string): Promise<string>;
}

export interface Deps {
  readonly io: IO;
  readonly env: Env;
  readonly cwd: string;
  readonly home: string;
  readonly now: () => number;
  /** The user's time zone for display (IANA name); defaults to the system's. */
  readonly timeZone?: string;
  readonly prompter?: Prompter;
  /** Aborted on SIGINT. */
  readonly signal?: AbortSignal;
  /**
   * Said by a command whose normal way to end is Ctrl-C (pm serve stops cleanly on it): the run
   * then exits with the command's own code rather than 130.
   */
  readonly interruptIsStop?: () => void;
}
