/**
 * The store: everything the server keeps, behind one narrow interface (docs/architecture.md). Each
 * record operation takes the account it acts for: a record of another account is a missing one.
 */
import type { ListQuery } from '../core/query.js';
import type { ValidBody } from '../core/validate.js';
import type { ResourceDef } from '../resources/types.js';
import type { BlobStore, Incoming } from './blobs.js';
import type { Budget } from './budget.js';

export type { Budget } from './budget.js';

/** A record as the API shows it: its fields by wire name (and embeds, when asked for). */
export type ApiRecord = Record<string, unknown>;

/**
 * A page of a list, and how many records the list has in all. `json`, when set, is the page's
 * records as JSON text already (what JSON.stringify(records) gives), made where the list ran (a
 * reader thread), which an answer carries as it is, and `count` how many they are.
 */
export type RecordPage = { records: ApiRecord[]; total: number; json?: { text: string; count: number } };

/** A create's idempotency key, and what its request was (a digest of its path and body): sql/idempotency.ts. */
export interface KeyClaim {
  readonly key: string;
  readonly fingerprint: string;
}

/** The record a new one is created under (a note's property). */
export interface ParentRef {
  readonly resource: ResourceDef;
  readonly uuid: string;
}

export type AccountUser = Pick<Principal, 'accountId' | 'userId'>;

/** A calendar feed as it is listed: never its secret. */
export interface FeedInfo {
  readonly uuid: string;
  readonly name: string;
  readonly created_at: string;
}

/**
 * The feed a secret opens: whose records it publishes, who is counted for it (the rate limit),
 * and what its answer's validator is made of: the account's count of the records, the latest
 * updated_at among them and the time one was last deleted (ms; 0 for none).
 */
export interface OpenedFeed extends AccountUser {
  /** The feed's uuid: what its own rate limit is kept by. */
  readonly uuid: string;
  readonly name: string;
  /** When the feed was made (ms): a feed of no records is as old as that. */
  readonly createdAt: number;
  readonly count: number;
  readonly updatedAt: number;
  readonly deletedAt: number;
}

/** Who a token speaks for, and what it may do. */
export interface Principal {
  readonly userId: number;
  readonly accountId: number;
  readonly scopes: ReadonlySet<string>;
  /** The token the request carried (none in-process, where the data file's owner asks). */
  readonly tokenId?: number | undefined;
}

/** A token as `pm serve tokens list` shows it: never the token itself. */
export interface TokenInfo {
  readonly id: number;
  readonly name: string;
  readonly hint: string;
  readonly scopes: string[];
  readonly account_id: number;
  readonly user_id: number;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
}

/** How a store answers: at once ('sync', SQLite), or at once or with a promise ('any', a database over the network). */
export type Answering = 'sync' | 'any';
type Answer<T, M extends Answering> = M extends 'sync' ? T : T | Promise<T>;

export interface StoreOf<M extends Answering> {
  // Records. A missing record is an ApiError 404; an invalid write a ValidationError (422) or a
  // clash with a unique key an ApiError 409; nothing is written then. A list with a budget is
  // stopped when it is spent, with OverBudget (budget.ts).
  list(accountId: number, r: ResourceDef, q: ListQuery, budget?: Budget): Answer<RecordPage, M>;
  get(accountId: number, r: ResourceDef, uuid: string, embed?: readonly string[]): Answer<ApiRecord, M>;
  /**
   * `file`: an attachment's bytes (received by `blobs.receive`, ended), written in the transaction
   * that creates its record. `key`: the request's idempotency key, claimed in that transaction and
   * kept with its answer; a key kept already throws its first answer (`Replayed`) or a 422
   * (sql/idempotency.ts), and nothing is written.
   */
  create(
    accountId: number,
    r: ResourceDef,
    body: ValidBody,
    parent?: ParentRef,
    file?: Incoming,
    key?: KeyClaim,
  ): Answer<ApiRecord, M>;
  update(accountId: number, r: ResourceDef, uuid: string, body: ValidBody): Answer<ApiRecord, M>;
  delete(accountId: number, r: ResourceDef, uuid: string): Answer<void, M>;

  // Accounts and their users.
  createAccount(name: string): Answer<AccountUser, M>;
  /** The first user ever created, and its account. */
  firstUser(): Answer<AccountUser | undefined, M>;
  userOfAccount(accountId: number): Answer<number | undefined, M>;

  // Tokens.
  /** A new token of a user: the token itself is returned once, and only its hash kept. */
  createToken(userId: number, name: string, scopes: readonly string[]): Answer<{ token: string; id: number }, M>;
  /** Who an unrevoked token speaks for (and its last use recorded, at most once a minute). */
  authenticate(token: string): Answer<Principal | undefined, M>;
  listTokens(): Answer<TokenInfo[], M>;
  /** Whether an active token was revoked. */
  revokeToken(id: number): Answer<boolean, M>;

  // Calendar feeds (sql/feeds.ts): an account's, each opened by its secret alone.
  /** A new feed of the user's account: its secret is returned once, and only its hash kept. */
  /** A feed made with a token ends with it (`tokenId`); one made without lasts until it is revoked. */
  createFeed(owner: AccountUser & Pick<Principal, 'tokenId'>, name: string): Answer<FeedInfo & { secret: string }, M>;
  listFeeds(accountId: number): Answer<FeedInfo[], M>;
  /** Whether the account had the feed (it is gone now). */
  revokeFeed(accountId: number, uuid: string): Answer<boolean, M>;
  /** The feed a secret opens, and its validator's parts for the records of `r`. */
  openFeed(secret: string, r: ResourceDef): Answer<OpenedFeed | undefined, M>;

  /** Deletes idempotency keys older than a day (a bounded number at a time); how many it deleted. */
  sweepKeys(): Answer<number, M>;

  /** The bytes of attachments, kept in the same database (blobs.ts). */
  readonly blobs: BlobStore;

  /** Whether the store answers now (GET /health): throws when it does not. */
  ping(): Answer<void, M>;

  close(): Answer<void, M>;
}

/** What the API core uses: any store, answering at once or later; callers await every answer. */
export type Store = StoreOf<'any'>;
