/**
 * A list as it travels to a reader thread and back (readers.ts, reader-worker.ts): its query with
 * fields, relations and resources named rather than copied (a description copied to a thread costs
 * tens of microseconds a list), and its records as the JSON text the answer carries.
 */
import type { Condition, ListQuery } from '../../core/query.js';
import { fieldOf, filterRelationsOf, resourceByPath } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';

/**
 * A thread's shared cells (an Int32Array of STOP_SLOTS + 1): a list asked to stop has its id in
 * cell `id % STOP_SLOTS` (pm_budget() reads it there; a thread's lists are numbered by the thread,
 * and more cells than it holds at once, so that no two share one), and the id of the list the thread started last is in cell STOP_SLOTS.
 */
export const STOP_SLOTS = 64;

/** A condition with its field, relation and target by name. */
export type WireCondition =
  | {
      readonly kind: 'relation';
      readonly relation: string;
      readonly target: string;
      readonly conditions: WireCondition[];
    }
  | { readonly kind: 'custom'; readonly [key: string]: unknown }
  | {
      readonly kind: Exclude<Condition['kind'], 'relation' | 'custom'>;
      readonly field: string;
      readonly [key: string]: unknown;
    };

export interface WireQuery extends Omit<ListQuery, 'conditions'> {
  readonly conditions: WireCondition[];
}

function packCondition(c: Condition): WireCondition {
  if (c.kind === 'relation')
    return {
      kind: 'relation',
      relation: c.relation.name,
      target: c.target.path,
      conditions: c.conditions.map(packCondition),
    };
  if (c.kind === 'custom') return c;
  return { ...c, field: c.field.name };
}

function unpackCondition(r: ResourceDef, c: WireCondition): Condition {
  if (c.kind === 'relation') {
    const relation = filterRelationsOf(r).find((x) => x.name === c.relation);
    const target = resourceByPath(c.target);
    if (!relation) throw new Error(`${r.path} has no relation ${c.relation}`);
    return { kind: 'relation', relation, target, conditions: c.conditions.map((x) => unpackCondition(target, x)) };
  }
  if (c.kind === 'custom') return c as Condition;
  const field = fieldOf(r, c.field as string);
  if (!field) throw new Error(`${r.path} has no field ${String(c.field)}`);
  return { ...c, field } as Condition;
}

export const packQuery = (q: ListQuery): WireQuery => ({ ...q, conditions: q.conditions.map(packCondition) });

export const unpackQuery = (r: ResourceDef, q: WireQuery): ListQuery => ({
  ...q,
  conditions: q.conditions.map((c) => unpackCondition(r, c)),
});
