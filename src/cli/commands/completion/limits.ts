/** What tab completion works with: the shells, what it answers, and how long it waits and remembers. */
import type { Candidate } from '../../../core/kinds.js';

export interface Completions {
  readonly candidates: readonly Candidate[];
  /** Do not add a space after the value: more is expected (`city=`, `uuid,`). */
  readonly nospace?: boolean;
  /** Let the shell complete a file name. */
  readonly files?: boolean;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** How long uuids fetched for completion are reused. */
export const CACHE_TTL_MS = 30_000;
/** How long a completion may wait for the API before giving up silently. */
export const TIMEOUT_MS = 1500;
/**
 * The same for the embedded default: no network to hang on, only the bundled server to start,
 * which a busy machine can make slower than TIMEOUT_MS.
 */
export const EMBEDDED_TIMEOUT_MS = 5000;
