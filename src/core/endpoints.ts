/** The API's own endpoints beside the resources' (no token needed for either). */

/** The OpenAPI document of the API (openapi.ts makes it). */
export const OPENAPI_PATH = '/openapi.json';
/** Whether the server can reach its store, for load balancers. */
export const HEALTH_PATH = '/health';
/** An account's calendar feeds: created, listed (never with their URLs) and revoked with a token. */
export const CALENDAR_FEEDS_PATH = '/calendar-feeds';
/**
 * Where a calendar feed is read: `/feeds/<secret>.ics`, the secret the whole credential (calendar
 * apps send no headers). The secret is in this one place of a path, and nowhere else.
 */
export const FEED_PATH = '/feeds';
