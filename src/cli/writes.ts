/**
 * What single and bulk writes share: the client-side check of a body (so mistakes fail before any
 * request; keys the description does not know go to the server to judge), and what an update
 * needs from the record as it is.
 */
import type { ResourceClient } from '../client/resources.js';
import { inputFields } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { ValidationError } from '../core/errors.js';
import { validateBody } from '../core/validate.js';

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
 * body lacks from the record as it is.
 */
export async function fillForUpdate(
  client: ResourceClient,
  r: ResourceDef,
  uuid: string,
  body: Record<string, unknown>,
): Promise<void> {
  const missing = inputFields(r).filter((f) => f.requiredOnUpdate && body[f.name] === undefined);
  if (!missing.length) return;
  const current = await client.get(r, uuid);
  for (const f of missing) body[f.name] = current[f.name];
}
