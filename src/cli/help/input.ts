/**
 * `pm help input`: what a value given blank means, the one rule for a flag, a CSV cell and a
 * JSON string alike (core/kinds.ts `isBlank`, `blankValue`), and which fields each resource
 * requires, derived from the descriptions.
 */
import { RESOURCES } from '../../resources/index.js';
import { commas, wrap } from './text.js';

function required(): string {
  const width = Math.max(...RESOURCES.map((r) => r.path.length)) + 4;
  return RESOURCES.filter((r) => r.verbs.create || r.verbs.update)
    .map((r) => {
      const names = r.fields.filter((f) => !f.readOnly && !f.nullable && f.default === undefined).map((f) => f.name);
      return wrap(names.length ? commas(names) : ['none'], 96, `  ${r.path.padEnd(width)}`);
    })
    .join('\n');
}

export function inputTopic(): string {
  return `INPUT

Values come to pm as flags (create, update), as CSV cells, or as JSON (NDJSON lines, a JSON
array) in --from-file and apply. One rule says what a value given blank means, for all of them:

  Blank ("" as a flag, an empty CSV cell, "" in JSON) clears the field: it becomes empty
  (null), or its default where it has one (bedrooms 0, has_garage false). A field that may
  not be empty cannot be blank: that is an error naming the field (and, in a file, its line),
  exit 2 for a flag; in a file that record alone fails (exit 1), the others go through.
  Not given (no flag, a column or key the file does not have) leaves the field as it is.
  In a custom_fields.NAME column, or a custom value in JSON, blank clears the value; a blank
  link column (status, type) clears the link.

  A reminders.csv without a description column leaves every description as it is; one with
  the column and a blank cell clears that reminder's description.

Fields that may not be blank (besides uuids and what the server sets):
${required()}

Examples:
  pm reminders update 9d4e6f21 --description ""          # clears the description
  pm contacts update 9d4e6f21 --company ""               # clears the company (--name "" is refused)
  pm reminders apply --from-file reminders.csv --key title --dry-run
  pm properties create --from-file properties.csv --validate-only   # blank required cells, by line
`;
}
