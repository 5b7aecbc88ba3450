/** Which hosts a token may be sent to over plain http. Cheap to import (no undici). */
import { isIP } from 'node:net';

/** localhost, 127.0.0.0/8, ::1 (and 127.x mapped into IPv6): this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true;
  const mapped = /^::ffff:(.+)$/.exec(h)?.[1];
  if (mapped === undefined) return false;
  if (isIP(mapped) === 4) return mapped.startsWith('127.');
  // ::ffff:7f00:1 is how URL writes ::ffff:127.0.0.1.
  const hi = /^([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(mapped)?.[1];
  return hi !== undefined && Number.parseInt(hi, 16) >> 8 === 127;
}

/** The host a token would go to over plain http, when that host is not this machine. */
export function insecureHost(baseUrl: string | URL, token: string | undefined): string | undefined {
  if (!token) return undefined;
  const u = typeof baseUrl === 'string' ? new URL(baseUrl) : baseUrl;
  if (u.protocol !== 'http:') return undefined;
  return isLoopbackHost(u.hostname) ? undefined : u.host;
}

/** Is a proxy variable set in this environment? */
export function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => (env[k] ?? '').trim() !== '');
}

/** The proxy URL with any credentials hidden, for traces. */
export function redactUrl(text: string): string {
  try {
    const u = new URL(text);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return text.replace(/\/\/[^@/]*@/, '//***@');
  }
}
