/** A JSON object: not null, not an array (what a record, a body or a document's node must be). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
