/**
 * The schema's history from migration 4 on, for both stores: each migration a list of literal
 * table specs (tables.ts says what each generates). Released migrations are frozen: their text
 * is pinned by the tests; a change to the schema is a new entry at the end, never an edit.
 * Migrations 1 to 3 are older, written as SQL per store (schema.ts, postgres/schema.ts).
 */
import { FIRST_RECORD_TABLES, PG_MIGRATION_KEYS, type Step } from './tables.js';

/** Where records stand, contact types, competencies: labels that records are filed by. */
const label = { name: 'label', type: 'text', notNull: true, maxLength: 255 } as const;

/**
 * The scopes a full token had before migration 4, one per resource and access: a token holding
 * every one of them was made with every scope there was, and becomes a full-scope token ('*'),
 * which has the scopes of every resource, those added later included (sql/tokens.ts).
 */
const FULL_BEFORE_4 = ['properties', 'contacts', 'custom-fields', 'notes', 'reminders'].flatMap((r) => [
  `${r}.read`,
  `${r}.write`,
]);

/** Migration 4: statuses, contact types and competencies, the records that carry them, and full-scope tokens as a rule. */
const catalogues: readonly Step[] = [
  {
    create: {
      name: 'statuses',
      records: true,
      columns: [label, { name: 'type', type: 'int', notNull: true, oneOf: [1, 2] }],
      folded: ['label'],
      indexes: [['account_id', 'type']],
    },
  },
  { create: { name: 'types', records: true, columns: [label], folded: ['label'] } },
  { create: { name: 'competencies', records: true, columns: [label], folded: ['label'] } },
  {
    create: {
      name: 'contact_competencies',
      records: false,
      columns: [
        { name: 'contact_id', type: 'id', notNull: true, references: { table: 'contacts', onDelete: 'CASCADE' } },
        {
          name: 'competency_id',
          type: 'id',
          notNull: true,
          references: { table: 'competencies', onDelete: 'CASCADE' },
        },
      ],
      primaryKey: ['contact_id', 'competency_id'],
      indexes: [['competency_id']],
    },
  },
  {
    alter: 'properties',
    add: [{ name: 'status_id', type: 'id', references: { table: 'statuses', onDelete: 'SET NULL' } }],
    indexes: [['status_id']],
  },
  {
    alter: 'contacts',
    add: [
      { name: 'status_id', type: 'id', references: { table: 'statuses', onDelete: 'SET NULL' } },
      { name: 'type_id', type: 'id', references: { table: 'types', onDelete: 'SET NULL' } },
    ],
    indexes: [['status_id'], ['type_id']],
  },
  {
    sql: `UPDATE tokens SET scopes = '*' WHERE ${FULL_BEFORE_4.map((s) => `(' ' || scopes || ' ') LIKE '% ${s} %'`).join(' AND ')}`,
  },
];

/**
 * Migration 5: what one account holds never changes what another's list costs. Every search
 * index keyed by account (search-keys.ts); on PostgreSQL, a custom value's text is no longer
 * indexed (its trigram index was shared): it is read among the account's values of the fields
 * filtered, as on SQLite. On SQLite, each account's writes counted per table
 * (record_counts.writes), which a keyset page's hint checks instead of the whole file's version.
 */
const searchKeys: readonly Step[] = [
  { postgres: PG_MIGRATION_KEYS },
  ...Object.entries({
    contacts: ['name', 'email', 'contact_number', 'company', 'address', 'address2', 'city', 'county', 'postcode'],
    properties: ['address', 'address2', 'city', 'county', 'postcode', 'type'],
    custom_fields: ['name', 'label'],
    notes: ['content'],
    reminders: ['title'],
    statuses: ['label'],
    types: ['label'],
    competencies: ['label'],
  }).map(([table, folded]) => ({ searchKeys: { table, folded, ...(table === 'notes' ? { long: ['content'] } : {}) } })),
  { postgres: 'DROP FUNCTION pm_migration_keys' },
  { sqlite: 'ALTER TABLE record_counts ADD COLUMN writes INTEGER NOT NULL DEFAULT 0' },
  ...['contacts', 'properties', 'custom_fields', 'notes', 'reminders', 'statuses', 'types', 'competencies'].map(
    (t) => ({ countWrites: t }),
  ),
  { postgres: 'DROP INDEX IF EXISTS custom_values_value_trgm' },
];

/**
 * Migration 6: calendar feeds (a secret URL that publishes an account's reminders; only the
 * secret's hash is kept), and the time a reminder was last deleted, so that a feed's validator
 * changes on a delete as it does on a create or an update.
 */
const calendarFeeds: readonly Step[] = [
  {
    create: {
      name: 'calendar_feeds',
      records: false,
      columns: [
        { name: 'uuid', type: 'text', notNull: true },
        { name: 'account_id', type: 'id', notNull: true, references: { table: 'accounts', onDelete: 'CASCADE' } },
        { name: 'user_id', type: 'id', notNull: true, references: { table: 'users', onDelete: 'CASCADE' } },
        { name: 'name', type: 'text', notNull: true, maxLength: 255 },
        { name: 'hash', type: 'text', notNull: true },
        { name: 'created_at', type: 'time', notNull: true },
      ],
      primaryKey: ['uuid'],
      indexes: [['hash'], ['account_id', 'created_at']],
    },
  },
  { alter: 'record_counts', add: [{ name: 'deleted_at', type: 'time' }] },
  { stampDeletes: 'reminders' },
];

/**
 * Migration 7: attachments, files of a property or a contact. Their bytes are kept in the same
 * database, in chunks (blobs.ts) keyed by the attachment's uuid; deleting an attachment (itself,
 * or with the record it belongs to) deletes its chunks in the same transaction, by a trigger.
 */
const files: readonly Step[] = [
  {
    create: {
      name: 'attachments',
      records: true,
      columns: [
        { name: 'name', type: 'text', notNull: true, maxLength: 255 },
        { name: 'description', type: 'text', maxLength: 65535 },
        { name: 'size', type: 'bigint', notNull: true },
        { name: 'mime_type', type: 'text', notNull: true, maxLength: 255 },
        { name: 'type', type: 'text', notNull: true, maxLength: 255 },
        { name: 'sha256', type: 'text', notNull: true, maxLength: 64 },
        { name: 'property_id', type: 'id', references: { table: 'properties', onDelete: 'CASCADE' } },
        { name: 'contact_id', type: 'id', references: { table: 'contacts', onDelete: 'CASCADE' } },
      ],
      folded: ['name'],
      indexes: [['property_id'], ['contact_id']],
    },
  },
  {
    create: {
      name: 'attachment_chunks',
      records: false,
      columns: [
        { name: 'attachment', type: 'text', notNull: true },
        { name: 'seq', type: 'int', notNull: true },
        { name: 'written_at', type: 'time', notNull: true },
        { name: 'data', type: 'bytes', notNull: true },
      ],
      primaryKey: ['attachment', 'seq'],
    },
  },
  {
    sqlite: `CREATE TRIGGER attachments_chunks_delete AFTER DELETE ON attachments BEGIN
  DELETE FROM attachment_chunks WHERE attachment = OLD.uuid;
END`,
  },
  {
    postgres: `CREATE FUNCTION pm_attachment_chunks_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM attachment_chunks c USING deleted d WHERE c.attachment = d.uuid;
  RETURN NULL;
END
$$`,
  },
  {
    postgres:
      'CREATE TRIGGER attachments_chunks_delete AFTER DELETE ON attachments REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION pm_attachment_chunks_deleted()',
  },
];

/**
 * Migration 8: idempotency keys (an extension of the API): a create sent with an `Idempotency-Key`
 * is kept with its answer, per account, so that the same request sent again (a retry whose answer
 * was lost, a second run of the same job) finds the first one's answer rather than making a twin.
 * The key is claimed in the transaction that writes the record, so the primary key is what tells
 * two requests at once apart, on one instance or several. Swept once older than a day
 * (sql/idempotency.ts), by `created_at`.
 */
const idempotencyKeys: readonly Step[] = [
  {
    create: {
      name: 'idempotency_keys',
      records: false,
      columns: [
        { name: 'account_id', type: 'id', notNull: true, references: { table: 'accounts', onDelete: 'CASCADE' } },
        { name: 'key', type: 'text', notNull: true, maxLength: 255 },
        { name: 'fingerprint', type: 'text', notNull: true },
        { name: 'status', type: 'int' },
        { name: 'body', type: 'text' },
        { name: 'created_at', type: 'time', notNull: true },
      ],
      primaryKey: ['account_id', 'key'],
      indexes: [['created_at']],
    },
  },
];

/**
 * Migration 9: a calendar feed ends with the token that made it (`token_id`: revoking the token
 * closes the feed; a feed made before, or in-process without a token, has none and lasts until it
 * is revoked itself); and on PostgreSQL, each feed's own rate-limit window, apart from its owner's
 * (SQLite's server counts them in memory, as it does a user's).
 */
const feedLimits: readonly Step[] = [
  {
    alter: 'calendar_feeds',
    add: [{ name: 'token_id', type: 'id', references: { table: 'tokens', onDelete: 'CASCADE' } }],
  },
  {
    postgres: `CREATE TABLE feed_rate_limits (
  feed TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  count INTEGER NOT NULL
)`,
  },
];

/**
 * A catalogue's records that another of the account (and of the same `scope` columns) made
 * before holds the same label, ASCII case aside (`same`: each store's comparison, as its label
 * filters make it), as a condition on the table's row.
 */
const laterTwin = (t: string, scope: readonly string[], same: (a: string, b: string) => string) =>
  `EXISTS (SELECT 1 FROM ${t} o WHERE o.account_id = ${t}.account_id${scope.map((c) => ` AND o."${c}" = ${t}."${c}"`).join('')} AND ${same('o.label', `${t}.label`)} AND o.id < ${t}.id)`;

/** A label made unique by its record's uuid, within the 255 characters a label may have. */
const suffixed = (col: string) => `substr(${col}, 1, 216) || ' (' || uuid || ')'`;

/**
 * Migration 10: a label names one record. Statuses (per type), contact types and competencies
 * that an account already holds twice, ASCII case aside, keep their records and every reference
 * to them: the oldest keeps its label, each later one gets its uuid after it ("For Let
 * (3f2a...)"), folded copy and search keys too. Then a unique index on each catalogue's fields
 * (sql/records.ts: `labelledIndex`), on the label compared as the stores compare labels.
 */
const uniqueLabels: readonly Step[] = [
  { postgres: PG_MIGRATION_KEYS },
  ...(
    [
      ['statuses', ['type']],
      ['types', []],
      ['competencies', []],
    ] as const
  ).flatMap(([t, scope]): Step[] => {
    const cols = ['account_id', ...scope.map((c) => `"${c}"`)].join(', ');
    const pgFold = (c: string) => `lower(${c} COLLATE "C")`;
    return [
      {
        sqlite: `UPDATE ${t} SET label = ${suffixed('label')}, label_fold = ${suffixed('label_fold')} WHERE ${laterTwin(t, scope, (a, b) => `${a} = ${b} COLLATE NOCASE`)}`,
      },
      {
        postgres: `UPDATE ${t} SET label = ${suffixed('label')}, label_fold = ${suffixed('label_fold')}, label_keys = pm_migration_keys(account_id, ${suffixed('label_fold')}) WHERE ${laterTwin(t, scope, (a, b) => `${pgFold(a)} = ${pgFold(b)}`)}`,
      },
      { sqlite: `CREATE UNIQUE INDEX ${t}_labelled ON ${t} (${cols}, label COLLATE NOCASE)` },
      { postgres: `CREATE UNIQUE INDEX ${t}_labelled ON ${t} (${cols}, ${pgFold('label')})` },
    ];
  }),
  { postgres: 'DROP FUNCTION pm_migration_keys' },
];

/**
 * Migration 11: reminders about a property or a contact (kept when it is deleted, the link cleared), done, and
 * repeating; attachments that expire (a certificate).
 */
const remindersAbout: readonly Step[] = [
  {
    alter: 'reminders',
    add: [
      { name: 'property_id', type: 'id', references: { table: 'properties', onDelete: 'SET NULL' } },
      { name: 'contact_id', type: 'id', references: { table: 'contacts', onDelete: 'SET NULL' } },
      { name: 'done_at', type: 'time' },
      { name: 'repeat', type: 'text', maxLength: 32 },
      { name: 'last_done_at', type: 'time' },
    ],
    indexes: [['property_id'], ['contact_id']],
  },
  { alter: 'attachments', add: [{ name: 'expires_on', type: 'time' }], indexes: [['account_id', 'expires_on']] },
];

/** The migrations from 4 on that came before update blocks, in order. */
const BEFORE_UPDATE_BLOCKS: readonly (readonly Step[])[] = [
  catalogues,
  searchKeys,
  calendarFeeds,
  files,
  idempotencyKeys,
  feedLimits,
  uniqueLabels,
  remindersAbout,
];

/** The record tables that migration 1 and the migrations in `before` made. */
const recordTables = (before: readonly (readonly Step[])[]): string[] => [
  ...FIRST_RECORD_TABLES,
  ...before.flat().flatMap((s) => ('create' in s && s.create.records ? [s.create.name] : [])),
];

/**
 * Update blocks (SQLite): each account's records of every record table in blocks by
 * (updated_at, id), as the order blocks keep them by (created_at, id) (tables.ts, UPDATE_BLOCKS),
 * filled from the rows already there and kept by triggers, so that a list filtered by an
 * `updated_at` range alone is totalled from them (sqlite/records.ts). Record tables made later
 * get them with their spec. PostgreSQL counts that range from its index: nothing to do there.
 */
const updateBlocks = (before: readonly (readonly Step[])[]): readonly Step[] => [
  {
    sqlite: `CREATE TABLE update_blocks (
  account_id INTEGER NOT NULL,
  tbl TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, tbl, updated_at, id)
) WITHOUT ROWID`,
  },
  ...recordTables(before).map((t) => ({ updateBlocks: t })),
];

/** Every migration from 4 on, in order (index 0 is migration 4). */
export const HISTORY: readonly (readonly Step[])[] = [...BEFORE_UPDATE_BLOCKS, updateBlocks(BEFORE_UPDATE_BLOCKS)];

/**
 * Whether the record tables the migration at `index` of HISTORY creates are account-led (from
 * migration 5 on): keyed search indexes, and on SQLite their account's write counter.
 */
export const accountLedAt = (index: number): boolean => index + 4 >= 5;

/** Whether the record tables the migration at `index` of HISTORY creates get update blocks (SQLite). */
export const updateBlocksAt = (index: number): boolean => index >= BEFORE_UPDATE_BLOCKS.length;
