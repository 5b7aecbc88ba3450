/**
 * Typed errors shared by the server and the CLI. Each carries what a person needs: one clear
 * sentence, and where it helps, the fields at fault and a suggestion of what to try next.
 */

type FieldErrors = Record<string, string[]>;

/** A request the API refuses: maps to an HTTP status on the server. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { message: string; errors?: FieldErrors } {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

/** A query parameter that cannot be understood: 400, naming the parameter. */
export class QueryError extends ApiError {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(400, message);
    this.name = 'QueryError';
  }
}

/** Field errors one 422 lists at the most; the message counts the rest. */
const MAX_FIELD_ERRORS = 100;

/** Laravel's summary line: the first error, and how many more there are (`left` not listed). */
function validationMessage(errors: FieldErrors, left = 0): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1 + left;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
}

export class ValidationError extends ApiError {
  constructor(errors: FieldErrors, left = 0) {
    super(422, validationMessage(errors, left), errors);
    this.name = 'ValidationError';
  }
}

/**
 * Collects field errors in the order they are found: the first MAX_FIELD_ERRORS of them, and a
 * count of the rest (a body of 50,000 unknown keys gets a short answer, quickly).
 */
export class ErrorBag {
  /** No prototype: a body key such as "__proto__" or "constructor" is just another field name. */
  readonly errors: FieldErrors = Object.create(null);
  private listed = 0;
  /** Errors found beyond the ones listed. */
  left = 0;
  add(field: string, message: string): void {
    if (this.listed >= MAX_FIELD_ERRORS) {
      this.left++;
      return;
    }
    this.listed++;
    const list = this.errors[field] ?? [];
    list.push(message);
    this.errors[field] = list;
  }
  get empty(): boolean {
    return this.listed === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.errors, this.left);
  }
}

/**
 * A database driver pm would need for this, not installed: pm's package has them as optional
 * dependencies (better-sqlite3 for a data file, pg for PostgreSQL), which an install may leave out
 * (npm install --omit=optional) or fail to build.
 */
export class MissingDriverError extends Error {
  /** Why it is not there. */
  static readonly WHY = "pm was installed without its optional dependencies, or the driver's build failed";

  constructor(
    /** The package: better-sqlite3 or pg. */
    readonly driver: string,
    /** What it is, in words: "the SQLite driver". */
    readonly what: string,
  ) {
    super(`${what} (${driver}) is not installed: ${MissingDriverError.WHY}`);
    this.name = 'MissingDriverError';
  }
}
