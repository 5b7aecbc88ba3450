/**
 * What single and bulk writes share: the client-side check of a body (so mistakes fail before any
 * request; keys the description does not know go to the server to judge), and what an update
 * needs from the record as it is.
 */
import type { ResourceClient } from '../client/resources.js';
import { inputFields } from '../resources/index.js';
import type { ResourceDef, SetDef } from '../resources/types.js';
import { ValidationError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { validateBody } from '../core/validate.js';
import { CliError, EXIT } from './errors.js';
import { changedSet, type SetChange } from './flag-values.js';
import { kebab } from './flags.js';

/** The field errors of a body, by wire name, or undefined when it is valid. */
export function fieldErrors(
  r: ResourceDef,
  body: Record<string, unknown>,
  mode: 'create' | 'update',
): Record<string, string[]> | undefined {
  const known = Object.fromEntries(
    Object.entries(body).filter(([k]) => r.fields.some((f) => f.name === k && !f.readOnly)),
  );
  try {
    validateBody(r, known, mode);
    return undefined;
  } catch (e) {
    if (e instanceof ValidationError) return e.errors ?? {};
    throw e;
  }
}

/**
 * The API's PUT wants some fields every time (a property's address and postcode): fill those the
 * body lacks from the record as it is. A set changed (--add-competency) is sent whole: the record's
 * set, embedded, with the change made.
 */
export async function fillForUpdate(
  client: ResourceClient,
  r: ResourceDef,
  uuid: string,
  body: Record<string, unknown>,
  changes: readonly SetChange[] = [],
): Promise<void> {
  const missing = inputFields(r).filter((f) => f.requiredOnUpdate && body[f.name] === undefined);
  if (!missing.length && !changes.length) return;
  const embed = changes.map((c) => c.set.name).join(',');
  const current = await client.get(r, uuid, embed || undefined);
  for (const f of missing) body[f.name] = current[f.name];
  for (const c of changes) body[c.set.name] = changedSet(c, heldOf(r, c.set, current[c.set.name]));
}

/**
 * The records of an embedded set ({"data": [...]}). A server that did not send it is not taken to
 * mean none: the whole set sent back would drop them all.
 */
function heldOf(r: ResourceDef, set: SetDef, embedded: unknown): Record<string, unknown>[] {
  const data = isObject(embedded) ? embedded.data : undefined;
  if (Array.isArray(data)) return data.filter(isObject);
  throw new CliError(
    EXIT.api,
    `the server did not say which ${set.name} the ${r.singular} has, so none can be added or removed.`,
    {
      hint: `Give the whole set with --${kebab(set.one)} instead.`,
    },
  );
}
