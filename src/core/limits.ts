/** Limits of list queries, shared by the server and the CLI (free of imports, cheap to load). */
export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;
export const MAX_QUERY_PARAMS = 64;
export const MAX_QUERY_VALUE = 1024;
/**
 * The longest text a text filter (`city=`, `content=`, `custom_fields[value]=`) searches for, in
 * characters: its cost on a row grows with its length (docs/security.md), and no one searches for
 * a substring longer than a sentence.
 */
export const MAX_SEARCH_VALUE = 128;
/** The largest request body the API takes (bytes): a record larger cannot be sent. */
export const MAX_BODY_BYTES = 1024 * 1024;
