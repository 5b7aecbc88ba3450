/** What must not reach a terminal as it is: passwords in URLs, control characters, bidi overrides. */

/** A URL as it may be printed: a password in it shown as ***, everything else as given. */
export function printableUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, '$1:***@');
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
