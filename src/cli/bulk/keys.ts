/**
 * The idempotency keys of bulk writes: a record of `apply` (or of a create with --skip-existing)
 * is created under a key derived from what it is (its resource, the key fields, their values and
 * the record as sent), so that two runs of the same file at once, or a run sent again, make it
 * once: the server gives the second the first one's answer.
 */
import { createHash } from 'node:crypto';
import { HttpStatusError } from '../../client/errors.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Session } from '../session.js';
import { keyOf } from './records.js';

type Rec = Record<string, unknown>;
type Parent = { resource: string; uuid: string } | undefined;

/** The key of a record created by a bulk write matched on `keys`: the same record, the same key. */
export function recordKey(r: ResourceDef, keys: readonly string[], body: Rec, parent: Parent): string {
  const what = JSON.stringify([r.path, keys, keyOf(keys, body), parent ?? null, body]);
  return `pm-${createHash('sha256').update(what).digest('hex')}`;
}

/**
 * Creates a record under its derived key. When the server answers with the answer the key was
 * first given, the record is looked for: one deleted since (within the day the key is kept) is
 * created again, under a new key.
 */
export async function createKeyed(s: Session, r: ResourceDef, body: Rec, parent: Parent, key: string): Promise<Rec> {
  const got = await s.client.createOnce(r, body, parent, key);
  if (!got.replayed || typeof got.record.uuid !== 'string') return got.record;
  try {
    await s.client.get(r, got.record.uuid);
    return got.record;
  } catch (e) {
    if (!(e instanceof HttpStatusError && e.status === 404)) throw e;
  }
  return s.client.create(r, body, parent);
}
