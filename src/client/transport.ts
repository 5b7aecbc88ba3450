/**
 * Which hosts a token may be sent to over plain http. Cheap to import: no undici, and node:net
 * only once a host is checked (a run without a token, as on the embedded default, checks none).
 */
import type { BlockList } from 'node:net';

let loopback: BlockList | undefined;
function loopbackAddresses(): BlockList {
  if (!loopback) {
    loopback = new (process.getBuiltinModule('node:net').BlockList)();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
  }
  return loopback;
}

/** localhost, 127.0.0.0/8, ::1 (and 127.x mapped into IPv6, which BlockList matches too): this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost') return true;
  const family = process.getBuiltinModule('node:net').isIP(h);
  return family !== 0 && loopbackAddresses().check(h, family === 4 ? 'ipv4' : 'ipv6');
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
