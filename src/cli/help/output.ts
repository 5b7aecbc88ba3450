/**
 * `pm help output`: the output flags every command shares, and each resource's default columns
 * and fields, derived from the resource descriptions.
 */
import { embedNames, RESOURCES } from '../../resources/index.js';
import { commas, wrap } from './text.js';

function columns(): string {
  const width = Math.max(...RESOURCES.map((r) => r.path.length)) + 4;
  return RESOURCES.map((r) => {
    const cols = r.fields.filter((f) => f.column).map((f) => f.name);
    const rest = [...r.fields.map((f) => f.name), ...embedNames(r)].filter((n) => !cols.includes(n));
    return [
      wrap(commas(cols), 96, `  ${r.path.padEnd(width)}columns:`),
      wrap(commas(rest), 96, `  ${''.padEnd(width)}also:   `),
    ].join('\n');
  }).join('\n');
}

export function outputTopic(): string {
  return `OUTPUT

The same data, for people and for programs. Data goes to stdout; everything else (messages
such as "Created property …", the page footer, warnings and errors) goes to stderr, so a
pipe or $(...) only ever sees data. Every write says what it did on stderr, a terminal or
not; -q and --json ask for the data alone, and get nothing else.

On a terminal
  A list is a table with colour and times in your time zone, and a footer on stderr:
  "showing 1-10 of 53, page 1 of 6". One record (get, create, update) is a list of its fields.
  A table too wide for the terminal first leaves out the columns that say nothing (empty, or
  all 0), then the least important ones, and says which on stderr (--fields shows them); text
  is shortened with … last, the least important first, and never a uuid, an email or a label.
  Sizes read as 2.9 MB (piped: bytes).
  An empty list prints "No properties found." on stderr and exits 0. A list (or an agenda)
  longer than the screen opens in a pager: PM_PAGER, else PAGER, else less -FRX (--no-pager or
  PM_PAGER=cat: none). Piped output is never paged.

Piped or redirected
  No colour, no box drawing, nothing cut short: the table's columns are separated by tabs,
  without a header line, and times are ISO 8601 in UTC as the API sent them. A tab, line break
  or backslash inside a value is written \\t, \\n, \\r or \\\\, so a record is one line. Ready
  for cut, awk and sort: pm properties list --city leeds | cut -f1

Formats (every command that prints records)
  --json                a list is one JSON array (with --all too), a record one JSON object
  --json uuid,city      JSON with only these fields, in this order
  -o json               the same as --json
  -o ndjson             one JSON object a line; with --all, written as pages arrive
  -o csv                comma-separated, with a header line (quoted where needed, RFC 4180)
                        a cell starting with =, +, -, @, tab or CR gets a leading ' so that a
                        spreadsheet does not run it as a formula (numbers are left alone);
                        --csv-exact writes the values exactly. JSON and NDJSON are always exact.
  -o tsv                tab-separated, with a header line (tabs and line breaks escaped)
  -o table              the default: a table on a terminal, tab-separated when piped
  -o ics                records with a due date (reminders): an iCalendar file (RFC 5545)
                        for a calendar app, an event each; the others are left out. To
                        subscribe instead: pm reminders feed create --name NAME
  --fields uuid,city    only these fields, in this order, in any format
  -q, --quiet           only the uuids, one a line: uuid=$(pm properties create … -q)
  --jq EXPR             filter the JSON with a jq expression; strings print raw, as jq -r
                        (jq is built in: nothing to install)

  Field names are the API's, in snake_case (has_garage, due_at). An unknown name is a usage
  error that lists the valid ones.

The columns of a table, and the other fields --json and --fields accept
${columns()}

  custom_fields (and a property's contact) are fetched only when named in --json or --fields,
  or with --embed. In CSV and TSV, custom values have a column each, custom_fields.NAME, for
  every custom field of the records' kind (empty where a record has no value).
  A record's status, contact type and competencies come with JSON, NDJSON, CSV and TSV as they
  do with a table: JSON as the API embeds them, {"data": {"uuid": …, "label": …}} (a list for
  competencies); CSV and TSV by label, competencies comma-separated (one whose label holds a
  comma by its uuid), which create --from-file and apply read back.

Pages
  --page N --per-page N    one page (per page: 1-100; the server's default is 10)
  --limit N                fetch pages until N records
  --all                    every page; records are written as they arrive
  On a terminal, a table is written page by page: its columns are as wide as the first page
  needs, and a longer value on a later page is cut short with … (-o tsv keeps it whole). Ctrl-C
  stops the list: what has arrived stays (sorted with --sort, a whole array with --json), a line
  says how far it got, and pm exits 130.

Colour
  Off when piped, with NO_COLOR set (to anything), or with --no-color; FORCE_COLOR=1 forces it
  through a pipe, FORCE_COLOR=0 turns it off.

Errors
  One sentence on stderr, and an exit code (pm help exit-codes). With --json or -o json|ndjson,
  the error is JSON on stderr too:
    {"error":{"message":"…","exit_code":3,"status":404}}

Examples:
  pm properties list --city leeds
  pm properties list --all -o ndjson | jq -r .postcode | sort | uniq -c
  pm contacts list --json name,email --jq '.[] | "\\(.name) <\\(.email)>"'
  pm reminders list --due-at P7D -o csv > due.csv
  pm properties list --bedrooms 3 -q | xargs -n1 pm properties get --json address
`;
}
