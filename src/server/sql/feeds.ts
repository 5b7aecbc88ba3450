/**
 * Calendar feeds, for both stores: a secret URL that publishes an account's agenda records (its
 * reminders) to whoever holds it. Like a token, the secret is shown once and only its hash kept;
 * unlike a token, it is the whole of the credential a calendar app sends (in the URL's path).
 */
import { formatTimestamp } from '../../core/datetime.js';
import type { ResourceDef } from '../../resources/types.js';
import type { AccountUser, FeedInfo, OpenedFeed, Principal } from '../store.js';
import { type Dialect, get, type Row, rows, run, type Steps } from './steps.js';
import { crypto, hashSecret } from './tokens.js';

/** A feed's secret: 256 random bits, base64url, with a prefix that secret scanners can look for. */
const newSecret = () => `pmf_${crypto().randomBytes(32).toString('base64url')}`;

const infoOf = (r: Row): FeedInfo => ({
  uuid: r.uuid as string,
  name: r.name as string,
  created_at: formatTimestamp(Number(r.created_at)),
});

/** A new feed of the owner's account; made with a token, it ends with that token (openFeed). */
export function* createFeed(
  d: Dialect,
  owner: AccountUser & Pick<Principal, 'tokenId'>,
  name: string,
): Steps<FeedInfo & { secret: string }> {
  const secret = newSecret();
  const row = { uuid: crypto().randomUUID(), name, created_at: d.now() };
  yield run(
    'INSERT INTO calendar_feeds (uuid, account_id, user_id, token_id, name, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [row.uuid, owner.accountId, owner.userId, owner.tokenId ?? null, name, hashSecret(secret), row.created_at],
  );
  return { ...infoOf(row), secret };
}

export function* listFeeds(accountId: number): Steps<FeedInfo[]> {
  // A feed whose token was revoked is closed with it, and not listed.
  const sql = `SELECT f.uuid, f.name, f.created_at FROM calendar_feeds f LEFT JOIN tokens k ON k.id = f.token_id
    WHERE f.account_id = ? AND k.revoked_at IS NULL ORDER BY f.created_at, f.uuid`;
  return ((yield rows(sql, [accountId])) as Row[]).map(infoOf);
}

/** Whether the account had a feed of that uuid (it has none now). */
export function* revokeFeed(accountId: number, uuid: string): Steps<boolean> {
  return ((yield run('DELETE FROM calendar_feeds WHERE account_id = ? AND uuid = ?', [accountId, uuid])) as number) > 0;
}

/**
 * The feed a secret opens, with what its answer's validator is made of, in one statement: the
 * account's count of `r` and the time one was last deleted (record_counts, kept by triggers), and
 * its latest updated_at (an index seek). The secret is looked up by its hash, so the time this
 * takes does not depend on how much of a guess is right. A feed whose token has been revoked
 * opens nothing, as a revoked feed does not.
 */
export function* openFeed(secret: string, r: ResourceDef): Steps<OpenedFeed | undefined> {
  const row = (yield get(
    `SELECT f.uuid, f.account_id, f.user_id, f.name, f.created_at, c.n, c.deleted_at,
       (SELECT MAX(updated_at) FROM ${r.table} t WHERE t.account_id = f.account_id) AS updated
     FROM calendar_feeds f LEFT JOIN record_counts c ON c.account_id = f.account_id AND c.tbl = ?
       LEFT JOIN tokens k ON k.id = f.token_id
     WHERE f.hash = ? AND k.revoked_at IS NULL`,
    [r.table, hashSecret(secret)],
  )) as Row | undefined;
  if (!row) return undefined;
  const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
  return {
    uuid: row.uuid as string,
    accountId: Number(row.account_id),
    userId: Number(row.user_id),
    name: row.name as string,
    createdAt: num(row.created_at),
    count: num(row.n),
    updatedAt: num(row.updated),
    deletedAt: num(row.deleted_at),
  };
}
