/** Accounts, their users, and the users' tokens (of which only a hash is kept), in SQLite. */
import { formatTimestamp } from '../../core/datetime.js';
import { type AccountUser, hashToken, newToken, type Principal, type TokenInfo } from '../store.js';
import type { Sql } from './statements.js';

export function createAccount(sql: Sql, name: string, userName = 'owner'): AccountUser {
  return sql.write(() => {
    const t = sql.now();
    const accountId = Number(
      sql.stmt('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run(name, t).lastInsertRowid,
    );
    const userId = Number(
      sql.stmt('INSERT INTO users (account_id, name, created_at) VALUES (?, ?, ?)').run(accountId, userName, t)
        .lastInsertRowid,
    );
    return { accountId, userId };
  });
}

export function firstUser(sql: Sql): AccountUser | undefined {
  return sql.stmt('SELECT id AS userId, account_id AS accountId FROM users ORDER BY id LIMIT 1').get() as
    | AccountUser
    | undefined;
}

export function userOfAccount(sql: Sql, accountId: number): number | undefined {
  const row = sql.stmt('SELECT id FROM users WHERE account_id = ? ORDER BY id LIMIT 1').get(accountId) as
    | { id: number }
    | undefined;
  return row?.id;
}

export function createToken(
  sql: Sql,
  userId: number,
  name: string,
  scopes: readonly string[],
): { token: string; id: number } {
  const token = newToken();
  const id = Number(
    sql
      .stmt('INSERT INTO tokens (user_id, name, hash, hint, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(userId, name, hashToken(token), token.slice(-4), scopes.join(' '), sql.now()).lastInsertRowid,
  );
  return { token, id };
}

export function authenticate(sql: Sql, token: string): Principal | undefined {
  const row = sql
    .stmt(
      `SELECT t.id, t.user_id, t.scopes, t.last_used_at, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.hash = ? AND t.revoked_at IS NULL`,
    )
    .get(hashToken(token)) as
    | { id: number; user_id: number; scopes: string; last_used_at: number | null; account_id: number }
    | undefined;
  if (!row) return undefined;
  const t = sql.now();
  if (row.last_used_at === null || t - row.last_used_at > 60_000) {
    try {
      sql.stmt('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(t, row.id);
    } catch {
      // Recording last use is best effort: a busy database must not fail a read.
    }
  }
  return {
    tokenId: row.id,
    userId: row.user_id,
    accountId: row.account_id,
    scopes: new Set(row.scopes.split(' ').filter(Boolean)),
  };
}

export function listTokens(sql: Sql): TokenInfo[] {
  const rows = sql
    .stmt(
      `SELECT t.id, t.name, t.hint, t.scopes, t.created_at, t.last_used_at, t.revoked_at, t.user_id, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id`,
    )
    .all() as Record<string, unknown>[];
  const ts = (v: unknown) => (v === null ? null : formatTimestamp(v as number));
  return rows.map((r) => ({
    id: r.id as number,
    name: r.name as string,
    hint: r.hint as string,
    scopes: (r.scopes as string).split(' ').filter(Boolean),
    account_id: r.account_id as number,
    user_id: r.user_id as number,
    created_at: formatTimestamp(r.created_at as number),
    last_used_at: ts(r.last_used_at),
    revoked_at: ts(r.revoked_at),
  }));
}

export function revokeToken(sql: Sql, id: number): boolean {
  return (
    sql.stmt('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(sql.now(), id).changes === 1
  );
}
