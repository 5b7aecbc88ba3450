/**
 * The global options: given before or after a command's own (`pm --profile x properties list`,
 * `pm properties list --profile x`), resolved once by run() into the factory (`f.globals()`).
 */

export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  color: boolean;
  input: boolean;
  /** false with --no-pager. */
  pager?: boolean;
  debug?: boolean;
  timeout?: string;
  retries?: string;
  allowInsecureHttp?: boolean;
}
