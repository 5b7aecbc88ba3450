/** Small builders of valid bodies, shared by the server tests. */
import { randomUUID } from 'node:crypto';
import type { DB } from '../../src/server/db.js';
import { expect } from 'vitest';
import type { Api } from '../helpers/server.js';

export const propertyBody = (extra: Record<string, unknown> = {}) => ({
  address: '1 High Street',
  postcode: 'LS1 1AA',
  ...extra,
});

export const contactBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  ...extra,
});

export const customFieldBody = (extra: Record<string, unknown> = {}) => ({
  label: 'Favourite Colour',
  type: { code: 1 },
  entity_type: { code: 2 },
  ...extra,
});

export const reminderBody = (extra: Record<string, unknown> = {}) => ({ title: 'Renew insurance', ...extra });

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

/** POSTs and expects 201; returns the created record. */
// biome-ignore lint/suspicious/noExplicitAny: records are arbitrary JSON
export async function create(api: Api, path: string, body: unknown): Promise<any> {
  const res = await api('POST', path, body);
  expect(res.status, `POST ${path}: ${res.text}`).toBe(201);
  return res.body.data;
}

/** GETs a list and returns its records' values of `key` (uuid by default), in order. */
export async function listKeys(api: Api, query: string, key = 'uuid'): Promise<unknown[]> {
  const res = await api('GET', query);
  expect(res.status, `GET ${query}: ${res.text}`).toBe(200);
  return res.body.data.map((r: Record<string, unknown>) => r[key]);
}

/** Properties written straight into a data file's table (its triggers keep counts and blocks), with these creation times. */
export function insertProperties(db: DB, accountId: number, times: number[]): void {
  const stmt = db.prepare(
    `INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, address_fold, postcode_fold)
     VALUES (?, ?, ?, ?, 'x', 'y', 'x', 'y')`,
  );
  db.transaction(() => {
    for (const t of times) stmt.run(accountId, randomUUID(), t, t);
  })();
}
