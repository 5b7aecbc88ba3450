/**
 * Search keys: what the search indexes hold (from migration 5 on), on both stores. A key is one
 * account's trigram: the account's id, `x`, and the trigram's UTF-8 bytes in hex (`7x7a6562` is
 * account 7's "zeb"). An index over keys is led by the account: a value's keys are found only in
 * its own account's rows, so what another account holds, and how much of it matches, never
 * changes what a search costs. A text's keys, in order, are its trigrams' (a substring of three
 * characters or more is a run of consecutive keys: SQLite's FTS5 matches it as a phrase; on
 * PostgreSQL, where pm writes a fold column's distinct keys beside it (`<field>_keys`, a GIN
 * index over them), the rows holding every key of a value are tested for the substring).
 */

const hexOf = new Map<string, string>();
const CACHED_CHARACTERS = 4096;

/** A character's UTF-8 bytes in hex (lower case). */
function hex(ch: string): string {
  let h = hexOf.get(ch);
  if (h === undefined) {
    h = Buffer.from(ch, 'utf8').toString('hex');
    if (hexOf.size < CACHED_CHARACTERS) hexOf.set(ch, h);
  }
  return h;
}

/**
 * The keys of every trigram of `text` (folded already), in order; none below three characters.
 * `distinct`: each key once, in the order first met.
 */
export function searchKeysOf(accountId: number | bigint, text: string, distinct = false): string[] {
  const chars = [...text];
  const prefix = `${accountId}x`;
  const h = chars.map(hex);
  const out: string[] = [];
  const seen = distinct ? new Set<string>() : undefined;
  for (let i = 0; i + 3 <= chars.length; i++) {
    if (seen) {
      const trigram = `${chars[i]}${chars[i + 1]}${chars[i + 2]}`;
      if (seen.has(trigram)) continue;
      seen.add(trigram);
    }
    out.push(prefix + h[i] + h[i + 1] + h[i + 2]);
  }
  return out;
}

/** A text's distinct keys (PostgreSQL's `<field>_keys`); null for no text. */
export function distinctSearchKeys(accountId: number, text: unknown): string[] | null {
  return typeof text === 'string' ? searchKeysOf(accountId, text, true) : null;
}

/**
 * The text a search index stores for a row's fold column: its keys, separated by spaces (which
 * SQLite's ascii tokenizer splits on); `distinct` (a long text's column, which is searched by
 * keys and never by a phrase: sqlite/dialect.ts), each key once, which costs a tenth of all of
 * them for prose. Null for no text, or text too short to hold a trigram. Registered as the SQL
 * function pm_search_keys(account_id, text[, distinct]) on every SQLite connection (db.ts), which
 * the index's triggers call.
 */
export function searchText(accountId: unknown, text: unknown, distinct?: unknown): string | null {
  if (typeof text !== 'string' || (typeof accountId !== 'number' && typeof accountId !== 'bigint')) return null;
  const keys = searchKeysOf(accountId, text, !!distinct);
  return keys.length ? keys.join(' ') : null;
}
