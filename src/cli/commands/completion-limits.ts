/** What tab completion works with: the shells, and how long it waits and remembers. */

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
/** Records fetched for uuid completion: the most recent page and the first. */
