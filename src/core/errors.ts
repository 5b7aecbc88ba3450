/**
 * Typed errors shared by the server and the CLI. Each carries what a person needs: one clear
 * sentence, and where it helps, the fields at fault and a suggestion of what to try next.
 */

export type FieldErrors = Record<string, string[]>;

/** A request the API refuses: maps to an HTTP status on the server. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, message: string, errors?: FieldErrors, headers?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.headers = headers;
  }

  toBody(): { message: string; errors?: FieldErrors } {
    return this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
  }
}

/** A query parameter that cannot be understood: 400, naming the parameter. */
export class QueryError extends ApiError {
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(400, message);
    this.name = 'QueryError';
    this.parameter = parameter;
  }
}

/** Laravel's summary line: the first error, and how many more there are. */
export function validationMessage(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
}

export class ValidationError extends ApiError {
  constructor(errors: FieldErrors) {
    super(422, validationMessage(errors), errors);
    this.name = 'ValidationError';
  }
}

/** Collects field errors in the order they are found. */
export class ErrorBag {
  /** No prototype: a body key such as "__proto__" or "constructor" is just another field name. */
  readonly errors: FieldErrors = Object.create(null);
  add(field: string, message: string): void {
    const list = this.errors[field] ?? [];
    list.push(message);
    this.errors[field] = list;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.errors);
  }
}
