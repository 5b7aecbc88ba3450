/**
 * The repository: the only module with SQL. Every column it names comes from a resource
 * description, never from input; every value is bound. Statements are prepared once per SQL text.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { childrenOf, ownerOfEntity, resourceByPath } from '../resources/index.js';
import type { FieldDef, LinkDef, ResourceDef } from '../resources/types.js';
import { formatDate, formatTimestamp, parseInstant } from '../core/datetime.js';
import { ApiError, ErrorBag, ValidationError } from '../core/errors.js';
import type { Condition, ListQuery } from '../core/query.js';
import { NAME_RE, nameFromLabel, type ValidBody } from '../core/validate.js';
import type { Statement } from 'better-sqlite3';
import type { DB } from './db.js';
import { columnsOf, foldColumnOf } from './schema.js';

export type Row = Record<string, unknown>;
export type Record_ = Record<string, unknown>;

export interface Principal {
  readonly tokenId: number;
  readonly userId: number;
  readonly accountId: number;
  readonly scopes: ReadonlySet<string>;
}

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

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newToken(): string {
  return `pm_${randomBytes(32).toString('base64url')}`;
}

/** A live count of a child resource's records, as a column expression of the parent's row. */
function countSql(r: ResourceDef, f: FieldDef, alias: string): string | undefined {
  const count = f.computed && 'count' in f.computed ? f.computed.count : undefined;
  const link = count === undefined ? undefined : childrenOf(r).find(({ child }) => child.path === count);
  if (!link) return undefined;
  return `(SELECT COUNT(*) FROM ${link.child.table} c WHERE c.${link.relation.column} = ${alias}.id) AS "${f.name}"`;
}

/** Case folding for fuzzy filters: Unicode-aware, unlike SQLite's LIKE and lower(). */
export function fold(value: string): string {
  return value.toLowerCase();
}

/** A value as a field's fold column keeps it: folded, and for a postcode without white space. */
function foldFor(f: FieldDef, value: string): string {
  return f.filter === 'postcode' ? fold(value).replace(/\s+/g, '') : fold(value);
}

/** Adds the fold columns of the text columns being written. */
function withFolds(r: ResourceDef, cols: Record<string, unknown>): Record<string, unknown> {
  for (const f of r.fields) {
    const col = foldColumnOf(f);
    if (col && f.name in cols) cols[col] = typeof cols[f.name] === 'string' ? foldFor(f, cols[f.name] as string) : null;
  }
  return cols;
}

export class Repository {
  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(
    readonly db: DB,
    private readonly now: () => number = Date.now,
  ) {}

  private stmt(sql: string): Statement<unknown[]> {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Runs `fn` in a write transaction taken up front, so that concurrent writers queue cleanly. */
  write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  // ---------------------------------------------------------------- accounts and tokens

  createAccount(name: string, userName = 'owner'): { accountId: number; userId: number } {
    return this.write(() => {
      const t = this.now();
      const accountId = Number(
        this.stmt('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run(name, t).lastInsertRowid,
      );
      const userId = Number(
        this.stmt('INSERT INTO users (account_id, name, created_at) VALUES (?, ?, ?)').run(accountId, userName, t)
          .lastInsertRowid,
      );
      return { accountId, userId };
    });
  }

  firstUser(): { accountId: number; userId: number } | undefined {
    const row = this.stmt('SELECT id AS userId, account_id AS accountId FROM users ORDER BY id LIMIT 1').get() as
      | { accountId: number; userId: number }
      | undefined;
    return row;
  }

  userOfAccount(accountId: number): number | undefined {
    const row = this.stmt('SELECT id FROM users WHERE account_id = ? ORDER BY id LIMIT 1').get(accountId) as
      | { id: number }
      | undefined;
    return row?.id;
  }

  createToken(userId: number, name: string, scopes: readonly string[]): { token: string; id: number } {
    const token = newToken();
    const id = Number(
      this.stmt('INSERT INTO tokens (user_id, name, hash, hint, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        userId,
        name,
        hashToken(token),
        token.slice(-4),
        scopes.join(' '),
        this.now(),
      ).lastInsertRowid,
    );
    return { token, id };
  }

  authenticate(token: string): Principal | undefined {
    const row = this.stmt(
      `SELECT t.id, t.user_id, t.scopes, t.last_used_at, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.hash = ? AND t.revoked_at IS NULL`,
    ).get(hashToken(token)) as
      | { id: number; user_id: number; scopes: string; last_used_at: number | null; account_id: number }
      | undefined;
    if (!row) return undefined;
    const t = this.now();
    if (row.last_used_at === null || t - row.last_used_at > 60_000) {
      try {
        this.stmt('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(t, row.id);
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

  listTokens(): TokenInfo[] {
    const rows = this.stmt(
      `SELECT t.id, t.name, t.hint, t.scopes, t.created_at, t.last_used_at, t.revoked_at, t.user_id, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id`,
    ).all() as Row[];
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

  revokeToken(id: number): boolean {
    return (
      this.stmt('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now(), id).changes ===
      1
    );
  }

  // ---------------------------------------------------------------- reading records

  private selectList(r: ResourceDef, alias: string): string {
    const cols = [`${alias}.id AS _id`, `${alias}.uuid`, `${alias}.created_at`, `${alias}.updated_at`];
    for (const f of r.fields) for (const c of columnsOf(f)) cols.push(`${alias}."${c}"`);
    for (const l of r.linkOnCreate ?? []) cols.push(`${alias}.${l.column} AS _link_${l.name}`);
    for (const f of r.fields) {
      const count = countSql(r, f, alias);
      if (count) cols.push(count);
    }
    return cols.join(', ');
  }

  /** SQL for a list of conditions on `alias`, pushing bound values onto `params`. */
  private where(
    r: ResourceDef,
    alias: string,
    conditions: readonly Condition[],
    params: unknown[],
    depth = 0,
  ): string[] {
    const out: string[] = [];
    for (const c of conditions) {
      switch (c.kind) {
        case 'in':
        case 'int':
          out.push(`${alias}."${c.field.name}" IN (${c.values.map(() => '?').join(', ')})`);
          params.push(...c.values);
          break;
        case 'bool':
          out.push(`${alias}."${c.field.name}" = ?`);
          params.push(c.value ? 1 : 0);
          break;
        case 'fuzzy':
          if (c.field.filter === 'postcode') {
            out.push(`instr(${alias}."${foldColumnOf(c.field)}", ?) > 0`);
            params.push(foldFor(c.field, c.value));
          } else {
            out.push(`instr(${alias}."${foldColumnOf(c.field)}", ?) > 0`);
            params.push(foldFor(c.field, c.value));
          }
          break;
        case 'range':
          out.push(`${alias}."${c.field.name}" >= ? AND ${alias}."${c.field.name}" < ?`);
          params.push(c.range.start, c.range.end);
          break;
        case 'relation': {
          const t = `r${depth}`;
          params.push(this.accountParam);
          const inner = this.where(c.target, t, c.conditions, params, depth + 1);
          out.push(
            `${alias}.${c.relation.column} IN (SELECT ${t}.id FROM ${c.target.table} ${t} WHERE ${t}.account_id = ?${inner
              .map((s) => ` AND ${s}`)
              .join('')})`,
          );
          break;
        }
        case 'custom': {
          const col = r.customValues?.column;
          const parts = ['cf.account_id = ?', 'cf.entity_type = ?'];
          params.push(this.accountParam, c.entity);
          if (c.name !== undefined) {
            parts.push('cf.name = ?');
            params.push(c.name);
          }
          if (c.uuids !== undefined) {
            parts.push(`cf.uuid IN (${c.uuids.map(() => '?').join(', ')})`);
            params.push(...c.uuids);
          }
          if (c.value !== undefined) {
            parts.push('instr(cv.value_fold, ?) > 0');
            params.push(fold(c.value));
          }
          out.push(
            `${alias}.id IN (SELECT cv.${col} FROM custom_values cv JOIN custom_fields cf ON cf.id = cv.field_id WHERE ${parts.join(' AND ')})`,
          );
          break;
        }
      }
    }
    return out;
  }

  /** Set while building one query: the account every relational subquery is confined to. */
  private accountParam = 0;

  list(accountId: number, r: ResourceDef, q: ListQuery): { records: Record_[]; total: number } {
    const params: unknown[] = [accountId];
    this.accountParam = accountId;
    const conds = this.where(r, 't', q.conditions, params);
    const where = ['t.account_id = ?', ...conds].join(' AND ');
    const total = (this.stmt(`SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}`).get(...params) as { n: number })
      .n;
    const offset = (q.page - 1) * q.perPage;
    const rows =
      offset >= total
        ? []
        : (this.stmt(
            `SELECT ${this.selectList(r, 't')} FROM ${r.table} t WHERE ${where} ORDER BY t.created_at, t.id LIMIT ? OFFSET ?`,
          ).all(...params, q.perPage, offset) as Row[]);
    const records = rows.map((row) => this.toRecord(r, row));
    this.embed(accountId, r, q.embed, rows, records);
    return { records, total };
  }

  private findRow(accountId: number, r: ResourceDef, uuid: string): Row | undefined {
    return this.stmt(`SELECT ${this.selectList(r, 't')} FROM ${r.table} t WHERE t.account_id = ? AND t.uuid = ?`).get(
      accountId,
      uuid,
    ) as Row | undefined;
  }

  private mustFind(accountId: number, r: ResourceDef, uuid: string): Row {
    const row = this.findRow(accountId, r, uuid);
    if (!row) throw new ApiError(404, `No ${r.singular} with uuid "${uuid}".`);
    return row;
  }

  get(accountId: number, r: ResourceDef, uuid: string, embed: readonly string[] = []): Record_ {
    const row = this.mustFind(accountId, r, uuid);
    const rec = this.toRecord(r, row);
    this.embed(accountId, r, embed, [row], [rec]);
    return rec;
  }

  private embed(accountId: number, r: ResourceDef, names: readonly string[], rows: Row[], records: Record_[]): void {
    if (names.includes('custom_fields')) this.embedCustomFields(r, rows, records);
    for (const link of r.linkOnCreate ?? [])
      if (names.includes(link.name)) this.embedLink(accountId, link, rows, records);
  }

  /** A linked record (a property's contact) as {"data": {uuid, ...identifying fields} | null}. */
  private embedLink(accountId: number, link: LinkDef, rows: Row[], records: Record_[]): void {
    const target = resourceByPath(link.target);
    const ids = [...new Set(rows.map((row) => row[`_link_${link.name}`]).filter((v) => v !== null))];
    const byId = new Map<number, Record_>();
    if (ids.length) {
      const cols = ['uuid', ...link.by.filter((b) => b !== 'uuid'), 'name'].filter(
        (c, i, a) => a.indexOf(c) === i && target.fields.some((f) => f.name === c),
      );
      const found = this.stmt(
        `SELECT id, ${cols.map((c) => `"${c}"`).join(', ')} FROM ${target.table}
         WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))`,
      ).all(accountId, JSON.stringify(ids)) as Row[];
      for (const f of found) {
        const { id, ...rest } = f;
        byId.set(id as number, rest);
      }
    }
    rows.forEach((row, i) => {
      const id = row[`_link_${link.name}`] as number | null;
      (records[i] as Record_)[link.name] = { data: id === null ? null : (byId.get(id) ?? null) };
    });
  }

  private embedCustomFields(r: ResourceDef, rows: Row[], records: Record_[]): void {
    const col = r.customValues?.column;
    const ids = rows.map((row) => row._id as number);
    const byOwner = new Map<number, Record_[]>();
    if (ids.length) {
      const values = this.stmt(
        `SELECT cv.${col} AS owner, cf.uuid, cf.name, cf.label, cv.value
         FROM custom_values cv JOIN custom_fields cf ON cf.id = cv.field_id
         WHERE cv.${col} IN (SELECT value FROM json_each(?)) ORDER BY cf.created_at, cf.id`,
      ).all(JSON.stringify(ids)) as Row[];
      for (const v of values) {
        const list = byOwner.get(v.owner as number) ?? [];
        list.push({ uuid: v.uuid, name: v.name, label: v.label, value: v.value });
        byOwner.set(v.owner as number, list);
      }
    }
    rows.forEach((row, i) => {
      (records[i] as Record_).custom_fields = { data: byOwner.get(row._id as number) ?? [] };
    });
  }

  private toRecord(r: ResourceDef, row: Row): Record_ {
    const rec: Record_ = {};
    for (const f of r.fields) rec[f.name] = this.valueOut(f, row);
    return rec;
  }

  private valueOut(f: FieldDef, row: Row): unknown {
    if (f.computed) return 'zero' in f.computed ? 0 : (row[f.name] ?? 0);
    const v = row[f.name];
    if (f.name === 'created_at' || f.name === 'updated_at') return formatTimestamp(v as number);
    switch (f.kind) {
      case 'bool':
        return v === 1;
      case 'code':
        return { code: v, name: f.codes?.[v as number] ?? null };
      case 'date_or_datetime':
        if (v === null || v === undefined) return null;
        return row[`${f.name}_is_date`] === 1 ? formatDate(v as number) : formatTimestamp(v as number);
      default:
        return v ?? null;
    }
  }

  // ---------------------------------------------------------------- writing records

  /** Column assignments for the body's values. */
  private columnValues(r: ResourceDef, values: ValidBody['values']): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(values)) {
      const f = r.fields.find((x) => x.name === name) as FieldDef;
      if (f.kind === 'bool') out[name] = v ? 1 : 0;
      else if (f.kind === 'date_or_datetime') {
        if (v === null) {
          out[name] = null;
          out[`${name}_is_date`] = 0;
        } else {
          out[name] = parseInstant(v as string)?.toMillis() ?? null;
          out[`${name}_is_date`] = /^\d{4}-\d{2}-\d{2}$/.test(v as string) ? 1 : 0;
        }
      } else out[name] = v;
    }
    return out;
  }

  private resolveLinks(accountId: number, r: ResourceDef, body: ValidBody, bag: ErrorBag): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const link of r.linkOnCreate ?? []) {
      const by = body.links[link.name];
      if (!by) continue;
      const [key, value] = Object.entries(by)[0] as [string, string];
      const target = resourceByPath(link.target);
      const rows = this.stmt(
        `SELECT id FROM ${target.table} WHERE account_id = ? AND "${key}" = ? COLLATE NOCASE LIMIT 2`,
      ).all(accountId, value) as { id: number }[];
      if (rows.length === 1) out[link.column] = (rows[0] as { id: number }).id;
      else
        bag.add(
          link.name,
          rows.length === 0
            ? `No ${target.singular} has ${key} "${value}".`
            : `More than one ${target.singular} has ${key} "${value}"; name it by uuid.`,
        );
    }
    return out;
  }

  private setCustomValues(accountId: number, r: ResourceDef, ownerId: number, body: ValidBody, bag: ErrorBag): void {
    if (!body.customValues || !r.customValues) return;
    const { column: col, entity } = r.customValues;
    const resolved: [number, string | null][] = [];
    body.customValues.forEach((cv, i) => {
      const key = cv.name !== undefined ? 'name' : 'uuid';
      const row = this.stmt(`SELECT id FROM custom_fields WHERE account_id = ? AND entity_type = ? AND ${key} = ?`).get(
        accountId,
        entity,
        cv.name ?? cv.uuid,
      ) as { id: number } | undefined;
      if (!row)
        bag.add(
          `custom_fields.${i}.${key}`,
          `No ${r.singular} custom field has ${key} "${cv.name ?? cv.uuid}"; create it with entity_type ${entity}.`,
        );
      else resolved.push([row.id, cv.value]);
    });
    if (!bag.empty) return;
    for (const [fieldId, value] of resolved) {
      if (value === null)
        this.stmt(`DELETE FROM custom_values WHERE field_id = ? AND ${col} = ?`).run(fieldId, ownerId);
      else
        this.stmt(
          `INSERT INTO custom_values (field_id, ${col}, value, value_fold) VALUES (?, ?, ?, ?)
           ON CONFLICT (field_id, ${col}) DO UPDATE SET value = excluded.value, value_fold = excluded.value_fold`,
        ).run(fieldId, ownerId, value, fold(value));
    }
  }

  /** Custom fields: a free name, generated from the label when none is given. */
  private customFieldName(accountId: number, values: Record<string, unknown>, entity: number, selfId?: number): void {
    const taken = (name: string) =>
      this.stmt('SELECT id FROM custom_fields WHERE account_id = ? AND entity_type = ? AND name = ?').get(
        accountId,
        entity,
        name,
      ) as { id: number } | undefined;
    const given = values.name;
    if (typeof given === 'string') {
      if (!NAME_RE.test(given))
        throw new ValidationError({
          name: ['The name field must start with a letter and hold only lower-case letters, digits and underscores.'],
        });
      const clash = taken(given);
      if (clash && clash.id !== selfId)
        throw new ApiError(409, `A custom field named "${given}" already exists for ${entityName(entity)}.`, {
          name: [`The name "${given}" is already taken.`],
        });
      return;
    }
    if (selfId !== undefined) {
      delete values.name;
      return;
    }
    const base = nameFromLabel(String(values.label));
    let name = base;
    for (let i = 2; taken(name); i++) name = `${base}_${i}`;
    values.name = name;
  }

  create(
    accountId: number,
    r: ResourceDef,
    body: ValidBody,
    parent?: { resource: ResourceDef; uuid: string },
  ): Record_ {
    return this.write(() => {
      const bag = new ErrorBag();
      const cols = this.columnValues(r, body.values);
      Object.assign(cols, this.resolveLinks(accountId, r, body, bag));
      if (parent) {
        const rel = r.parents?.find((x) => x.target === parent.resource.path);
        const p = this.mustFind(accountId, parent.resource, parent.uuid);
        if (rel) cols[rel.column] = p._id;
      }
      bag.throwIfAny();
      if (r.path === 'custom-fields') this.customFieldName(accountId, cols, Number(cols.entity_type));
      const t = this.now();
      const uuid = randomUUID();
      withFolds(r, cols);
      const names = ['account_id', 'uuid', 'created_at', 'updated_at', ...Object.keys(cols)];
      const id = Number(
        this.stmt(
          `INSERT INTO ${r.table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        ).run(accountId, uuid, t, t, ...Object.values(cols)).lastInsertRowid,
      );
      this.setCustomValues(accountId, r, id, body, bag);
      bag.throwIfAny();
      return this.get(accountId, r, uuid);
    });
  }

  update(accountId: number, r: ResourceDef, uuid: string, body: ValidBody): Record_ {
    return this.write(() => {
      const row = this.mustFind(accountId, r, uuid);
      const bag = new ErrorBag();
      const cols = this.columnValues(r, body.values);
      // A stored date (all day) cannot be made "not all day" without giving a time.
      for (const f of r.fields)
        if (f.allDayFlag && cols[f.name] === undefined && cols[f.allDayFlag] === 0 && row[`${f.name}_is_date`] === 1)
          throw new ValidationError({
            [f.allDayFlag]: [`The ${f.allDayFlag} field cannot be false when ${f.name} is a date without a time.`],
          });
      if (r.path === 'custom-fields') {
        const entity = Number(cols.entity_type ?? row.entity_type);
        if (cols.entity_type !== undefined && cols.entity_type !== row.entity_type) {
          const used = this.stmt('SELECT 1 FROM custom_values WHERE field_id = ? LIMIT 1').get(row._id);
          if (used)
            throw new ValidationError({
              entity_type: ['The entity type cannot change while values of this field are stored.'],
            });
        }
        this.customFieldName(accountId, cols, entity, row._id as number);
      }
      withFolds(r, cols);
      const names = Object.keys(cols);
      this.stmt(
        `UPDATE ${r.table} SET ${[...names.map((n) => `"${n}" = ?`), 'updated_at = ?'].join(', ')} WHERE id = ?`,
      ).run(...Object.values(cols), this.now(), row._id);
      this.setCustomValues(accountId, r, row._id as number, body, bag);
      bag.throwIfAny();
      return this.get(accountId, r, uuid);
    });
  }

  delete(accountId: number, r: ResourceDef, uuid: string): void {
    const changes = this.write(
      () => this.stmt(`DELETE FROM ${r.table} WHERE account_id = ? AND uuid = ?`).run(accountId, uuid).changes,
    );
    if (changes === 0) throw new ApiError(404, `No ${r.singular} with uuid "${uuid}".`);
  }
}

function entityName(code: number): string {
  return ownerOfEntity(code)?.plural ?? `entity type ${code}`;
}
