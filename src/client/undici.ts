/**
 * The parts of undici pm uses, not its root module (which also loads fetch, websockets and
 * caches, and costs more than Node's own start-up). The build makes this module a chunk of its
 * own (dist/bundle/vendor/undici.cjs, see esbuild.config.mjs), read only by a run that sends a
 * request; it also leaves undici's HTTP/2 client out.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
// @ts-expect-error: undici's internal files carry no types; they are typed below.
import dispatcherModule from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error: as above.
import apiModule from 'undici/lib/api/index.js';
// @ts-expect-error: as above.
import agentModule from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error: as above.
import connectModule from 'undici/lib/core/connect.js';

// What undici's root module does for every dispatcher: the request API on the prototype.
const Base = dispatcherModule as { prototype: object };
if (!('request' in Base.prototype)) Object.assign(Base.prototype, apiModule);

export const Agent = agentModule as typeof Undici.Agent;
export const buildConnector = connectModule as typeof Undici.buildConnector;

/** undici's proxy agent, loaded only when a proxy variable is set. */
export function envHttpProxyAgent(): typeof Undici.EnvHttpProxyAgent {
  return createRequire(import.meta.url)('undici/lib/dispatcher/env-http-proxy-agent.js');
}
