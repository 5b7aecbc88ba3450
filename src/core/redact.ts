/** What must not reach a terminal as it is: passwords in URLs, and control characters. */

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
    ? text.replace(/\r\n?/g, '\n').replace(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/g, ' ')
    : text.replace(/\r\n|[\x00-\x1f\x7f-\x9f]/g, ' ');
}
