/** What must not reach a terminal as it is: passwords in URLs, control characters, bidi overrides. */

/**
 * The passwords a connection string holds, in every form a PostgreSQL client reads: a URL's
 * userinfo (up to the last @, since a password may hold an unencoded / # ? or @), its `password`
 * parameter, and libpq's `password=...` (quoted or not); each as written and percent-decoded.
 */
export function passwordsIn(text: string): string[] {
  const found: string[] = [];
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text);
  const at = text.lastIndexOf('@');
  if (scheme && at > scheme[0].length) {
    const userinfo = text.slice(scheme[0].length, at);
    const colon = userinfo.indexOf(':');
    if (colon >= 0) found.push(userinfo.slice(colon + 1));
  }
  for (const m of text.matchAll(/[?&]password=([^&#]*)/gi)) found.push(m[1] as string);
  for (const m of text.matchAll(/(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/gi)) {
    const v = m[1] as string;
    found.push(v, v.startsWith("'") ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v);
  }
  const decoded = found.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return [...new Set([...found, ...decoded])].filter((p) => p !== '').sort((a, b) => b.length - a.length);
}

/** A connection string or URL as it may be printed: every password in it (passwordsIn) shown as ***. */
export function printableUrl(text: string): string {
  return hidePasswords(text, text);
}

/** Text (a message) with every password of the connection string `secret` holds shown as ***. */
export function hidePasswords(text: string, secret: string): string {
  let out = text;
  for (const p of passwordsIn(secret)) out = out.split(p).join('***');
  return out;
}

/**
 * Text from elsewhere (a record's value, a server's message) as it may reach a terminal: control
 * characters (C0, DEL and C1: ESC, BEL, CSI...) would move the cursor, recolour or retitle it, so
 * each becomes a space; line breaks too, unless `lines` keeps them.
 */
export function visible(text: string, lines = false): string {
  return lines
    ? text.replace(/\r\n?/g, '\n').replace(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, ' ')
    : text.replace(/\r\n|[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, ' ');
}

/**
 * Text from elsewhere with every control character (C0, DEL, C1) and every bidi control (the
 * overrides and isolates visible() replaces, and the marks U+061C, U+200E, U+200F) taken out:
 * for a file's name, where a space in their place would change the name.
 */
export function withoutUnseen(text: string): string {
  return text.replace(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '');
}

/**
 * Text a program wrote for a terminal (CSV, TSV, jq's output): its tabs and line breaks kept, as
 * its format needs them; every other control character, and each bidi override or isolate
 * (U+202A-U+202E, U+2066-U+2069: they make text read other than it is), a space.
 */
export function terminalText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, ' ');
}

/**
 * JSON text with what JSON.stringify leaves raw and a terminal acts on (DEL, the C1 controls such
 * as U+009B, a CSI; bidi overrides and isolates) written as \u escapes: the same JSON to any parser,
 * safe to show.
 */
export function jsonText(text: string): string {
  return text.replace(
    /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A calendar feed's secret as it is made (`pmf_` and 43 base64url characters): the whole of a
 * feed's credential, in its URL's path (/feeds/<secret>.ics).
 */
const FEED_SECRET = /pmf_[A-Za-z0-9_-]{16,}/g;

/** Text for a trace or a log: every calendar feed's secret in it shown as pmf_***. */
export function hideFeedSecrets(text: string): string {
  return text.replace(FEED_SECRET, 'pmf_***');
}
