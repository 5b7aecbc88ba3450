/**
 * `pm help filters`: how list filters match, the relational and custom field filters, and the
 * filter flags of every list command, derived from the resource descriptions.
 */
import { Command } from 'commander';
import {
  filterFields,
  filterRelationsOf,
  namedBy,
  RESOURCES,
  resourceByPath,
  whereRelationsOf,
} from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { addFilterFlags, flagWord, kebab, type Named } from '../flags.js';
import { commas, inWords, wrap } from './text.js';

/**
 * The filter flags of one resource's list command, as addFilterFlags declares them, in the order
 * of its --help; a switch reads both ways: --[no-]has-garage.
 */
function filterFlags(r: ResourceDef): string[] {
  const cmd = new Command();
  addFilterFlags(cmd, r);
  const flags = cmd.options.map((o) => o.long as string);
  return flags
    .filter((f) => !f.startsWith('--no-'))
    .map((f) => (flags.includes(`--no-${f.slice(2)}`) ? `--[no-]${f.slice(2)}` : f));
}

function perResource(): string {
  const listed = RESOURCES.filter((r) => r.verbs.list);
  const width = Math.max(...listed.map((r) => `pm ${r.path} list`.length)) + 4;
  return listed.map((r) => wrap(commas(filterFlags(r)), 96, `  pm ${r.path} list`.padEnd(width))).join('\n');
}

function relationsSection(): string {
  return RESOURCES.flatMap((r) =>
    whereRelationsOf(r).map((rel) => {
      const target = resourceByPath(rel.target);
      return [
        `  ${`--${rel.name} UUID`.padEnd(30)} ${r.path} of this ${target.singular} (repeatable: any of them)`,
        `  ${`--${rel.name}-where FIELD=VALUE`.padEnd(30)} ${r.path} whose ${target.singular} matches a ${target.path} filter`,
        wrap(
          [
            ...'(repeatable: all apply). FIELD:'.split(' '),
            ...commas(
              filterFields(target).map((f) => f.name),
              '.',
            ),
          ],
          96,
          ' '.repeat(32),
        ),
      ].join('\n');
    }),
  ).join('\n');
}

/** Each link and set lists filter by, with the resources that have it: --status on properties and contacts. */
function namedFilters(): { flag: string; n: Named; paths: string[] }[] {
  const out: { flag: string; n: Named; paths: string[] }[] = [];
  for (const r of RESOURCES.filter((x) => x.verbs.list))
    for (const n of filterRelationsOf(r).filter(namedBy)) {
      const flag = `--${kebab(flagWord(n))}`;
      const seen = out.find((x) => x.flag === flag);
      if (seen) seen.paths.push(r.path);
      else out.push({ flag, n, paths: [r.path] });
    }
  return out;
}

function namedSection(): string {
  return namedFilters()
    .map(({ flag, n, paths }) => {
      const target = resourceByPath(n.target);
      const how = `${'one' in n ? 'with' : 'of'} this ${target.singular}`;
      return wrap(
        `${inWords(paths)} ${how} (repeatable: any of them)`.split(' '),
        96,
        `  ${`${flag} ${n.by.map((b) => b.toUpperCase()).join('|')}`.padEnd(30)}`,
        ' '.repeat(33),
      );
    })
    .join('\n');
}

export function filtersTopic(): string {
  const named = namedFilters();
  const custom = RESOURCES.filter((r) => r.customValues)
    .map((r) => r.path)
    .join(' and ');
  return `FILTERS

Every list command has a flag for each field it can filter on (pm <resource> list --help shows
them). Flags combine: every filter given must match. A flag marked "repeatable" may be given
several times, and then any of its values matches (--bedrooms 2 --bedrooms 3).

How each kind of field matches
  text       --city leeds              contains, ignoring case: "Leeds", "NORTH LEEDS"
  postcode   --postcode ls11aa         contains, ignoring case and spaces: "LS1 1AA"
  number     --bedrooms 3              equals (repeatable: any of the values)
  yes/no     --has-garage              is true; --no-has-garage: is false
  code       --entity-type property    a code or its name: --entity-type 2 is the same
  uuid       --uuid 3f2a9c1e           one of these records (repeatable); a uuid's first 8
                                       characters or more name it, in any case
  datetime   --created-at -P7D         in a date, datetime, interval or duration: see pm help dates

  Text matches literally: % and _ are ordinary characters; a blank value is a usage error. A
  field with no value never matches a filter on it.

Notes, by their parent
${relationsSection()}

  Several --property-where filters all apply to the same property. A note has one parent, so
  --property… and --contact… filters together match nothing.

By ${inWords(named.map((x) => x.flag.slice(2)))}, named by a label or a uuid
${namedSection()}

  A label matches whole, ignoring case: --status "for let" finds "For Let", never "Not for let
  (owner occupied)". A uuid, or its first 8 characters or more, names one too. Each value is looked
  up before the list is asked for: one that names nothing is refused (exit 1) with the nearest
  labels ("did you mean For Let?"), never answered with an empty list.

Custom field values (${custom})
  --custom-field NAME=VALUE      the custom field named NAME (exactly) has a value containing
                                 VALUE (ignoring case)
  --custom-field NAME=           the custom field named NAME has a value
  --custom-value TEXT            any custom field value contains TEXT
  NAME is the custom field's name, not its label: pm custom-fields list --json name,label

The filter flags of each list command
${perResource()}

Examples:
  pm properties list --city leeds --bedrooms 3 --bedrooms 4 --has-garden
  pm properties list --postcode "LS1 1" --created-at -P30D --json uuid,address,postcode
  pm contacts list --email @acme.com -q | wc -l
  pm notes list --property-where city=leeds --property-where bedrooms=3
  pm notes list --contact-where email=@acme.com --created-at -P7D
  pm properties list --custom-field colour=red --json uuid,custom_fields
  pm properties list --status "For Let" --city leeds
  pm contacts list --type Contractor --competency Plumbing --competency Electrics
  pm custom-fields list --entity-type property

A filter the API has but pm has no flag for can be sent with pm api:
  pm api GET /properties -F 'custom_fields[uuid]=8c1d…' -F 'custom_fields[value]=red'
`;
}
