/** Secrets kept out of what is printed. */

/** A URL as it may be printed: a password in it shown as ***, everything else as given. */
export function printableUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, '$1:***@');
}
