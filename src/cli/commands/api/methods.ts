/** The methods `pm api` sends, and how far --paginate reads. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
/** The methods -F gives body fields to; the others, query parameters. */
export const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** The most pages --paginate reads. */
export const MAX_PAGES = 10_000;
