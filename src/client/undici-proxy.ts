/** undici's proxy agent, loaded only when a proxy variable is set (see undici.ts). */
import type * as Undici from 'undici';
import './undici.js';
// @ts-expect-error: undici's internal files carry no types; typed below.
import proxyModule from 'undici/lib/dispatcher/env-http-proxy-agent.js';

export const EnvHttpProxyAgent = proxyModule as typeof Undici.EnvHttpProxyAgent;
