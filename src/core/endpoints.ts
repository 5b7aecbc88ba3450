/** The API's own endpoints beside the resources' (no token needed for either). */

/** The OpenAPI document of the API (openapi.ts makes it). */
export const OPENAPI_PATH = '/openapi.json';
/** Whether the server can reach its store, for load balancers. */
export const HEALTH_PATH = '/health';
