/**
 * The examples at the end of each resource command's --help: a filter, --json in a pipeline,
 * a script or CI use. Written by hand, as the GitHub CLI's are (a good example needs real
 * values: an address, a postcode, a date); test/cli/help.test.ts checks that every flag they use
 * exists on the command. A resource without its own examples gets the generic ones.
 */
import type { ResourceDef } from '../../resources/types.js';
import { matchKeys } from '../flags.js';

type ExampleVerb = keyof ResourceDef['verbs'] | 'group' | 'apply';

/** A record's uuid as a person types it: its first 8 characters (what a table on a terminal shows). */
const ID: Record<string, string> = {
  properties: '3f2a9c1e',
  contacts: '7b1d0c55',
  'custom-fields': '8c1d2e3f',
  notes: '5e7a9b10',
  reminders: '9d4e6f21',
  statuses: 'a1b2c3d4',
  types: 'b2c3d4e5',
  competencies: 'c3d4e5f6',
  attachments: '5c1d7e2a',
};

const BY_RESOURCE: Record<string, Partial<Record<ExampleVerb, string[]>>> = {
  properties: {
    list: [
      'pm properties list --city leeds --bedrooms 3 --has-garden',
      'pm properties list --status "For Let" --json uuid,address,status',
      'pm properties list --postcode LS1 --created-at -P7D --json uuid,address,postcode',
      'pm properties list --custom-field colour=red --all -o csv > red.csv',
    ],
    get: [
      'pm properties get 3f2a9c1e',
      'pm properties get 3f2a9c1e --json address,postcode,custom_fields',
      'pm properties get "$uuid" --jq .num_notes',
    ],
    create: [
      'pm properties create --address "1 High St" --postcode "LS1 1AA" --city Leeds --bedrooms 3',
      'pm properties create --address "2 Mill Lane" --postcode "LS2 7EW" --contact jo@example.com --status "For Let"',
      'pm properties create --address "3 Kirk Gate" --postcode "LS2 7DJ" --custom-field colour=red',
      'uuid=$(pm properties create --data @property.json -q)',
      'pm properties create --from-file properties.csv',
    ],
    update: [
      'pm properties update 3f2a9c1e --bedrooms 4 --has-garage',
      'pm properties update 3f2a9c1e --status "Let agreed"',
      'pm properties update 3f2a9c1e --no-status',
      'pm properties update 3f2a9c1e --unset county --custom-field colour=',
      'pm properties update --from-file changes.ndjson',
    ],
    delete: [
      'pm properties delete 3f2a9c1e                          # asks first',
      'pm properties delete --yes 3f2a9c1e 8b0e4d2a',
      'pm properties list --postcode ZZ9 -q | pm properties delete - --yes',
    ],
  },
  contacts: {
    list: [
      'pm contacts list --name smith --company acme',
      'pm contacts list --email @acme.com --json name,email',
      'pm contacts list --type Contractor --competency Plumbing --competency Electrics',
      'pm contacts list --custom-field tenant_since= -q | wc -l',
    ],
    get: ['pm contacts get 7b1d0c55', 'pm contacts get 7b1d0c55 --json name,email,status,competencies'],
    create: [
      'pm contacts create --name "Jo Bloggs" --email jo@example.com --contact-number "0113 496 0000"',
      'uuid=$(pm contacts create --name "Sam Lee" --email sam@example.com --company "Acme Lettings" -q)',
      'pm contacts create --name "Al Fix" --email al@example.com --type Contractor --competency Plumbing --competency Electrics',
    ],
    update: [
      'pm contacts update 7b1d0c55 --company "Acme Lettings"',
      'pm contacts update 7b1d0c55 --unset contact_number',
      'pm contacts update 7b1d0c55 --add-competency Plumbing --remove-competency Photography',
      'pm contacts update 7b1d0c55 --status Active --no-type',
    ],
  },
  'custom-fields': {
    list: ['pm custom-fields list --entity-type property', 'pm custom-fields list --json name,label,entity_type'],
    get: ['pm custom-fields get 8c1d2e3f', 'pm custom-fields get 8c1d2e3f --json name,label'],
    create: [
      'pm custom-fields create --label "Favourite colour" --type text --entity-type property',
      'pm custom-fields create --name tenant_since --label "Tenant since" --type 1 --entity-type contact -q',
    ],
    update: [
      'pm custom-fields update 8c1d2e3f --label "Colour"',
      'pm custom-fields update 8c1d2e3f --name colour --json name,label',
    ],
    delete: [
      'pm custom-fields delete 8c1d2e3f                 # and its values everywhere',
      'pm custom-fields list --label old -q | pm custom-fields delete - --yes',
    ],
  },
  notes: {
    list: [
      'pm notes list --property 3f2a9c1e',
      'pm notes list --property-where city=leeds --content boiler',
      'pm notes list --contact-where email=@acme.com --created-at -P7D --json content,created_at',
    ],
    get: ['pm notes get 5e7a9b10', 'pm notes get 5e7a9b10 --jq .content'],
    create: [
      'pm notes create --property 3f2a9c1e --content "Boiler serviced"',
      'echo "Keys with neighbour" | pm notes create --contact 7b1d0c55 -q',
      'pm notes create --property 3f2a9c1e --content-file inspection.txt',
    ],
  },
  reminders: {
    list: [
      'pm reminders list --due-at P7D',
      'pm reminders list --title gas --json title,due_at',
      'pm reminders list --due-at -P30D --all -o csv > overdue.csv',
      'pm reminders list --property-where city=leeds --no-done',
      'pm reminders list --property 3f2a9c1e --done --json title,last_done_at,done_at',
    ],
    get: ['pm reminders get 9d4e6f21', 'pm reminders get 9d4e6f21 --json title,due_at,anytime'],
    create: [
      'pm reminders create --title "Renew gas certificate" --due-at 2026-12-01',
      'pm reminders create --title "Inspection" --description "Flat 3" --due-at 2026-12-01T09:30:00Z -q',
      'pm reminders create --title "Gas safety check" --property 3f2a9c1e --due-at 2027-02-01 --repeat "every year"',
      'pm reminders create --title "Call about the lease" --contact ada@example.com --due-at "next monday 10am"',
    ],
    update: [
      'pm reminders update 9d4e6f21 --due-at 2026-12-08',
      'pm reminders update 9d4e6f21 --unset due_at',
      'pm reminders update 9d4e6f21 --repeat P6M --property 3f2a9c1e',
      'pm reminders update 9d4e6f21 --no-property --unset repeat',
    ],
    apply: [
      'pm reminders apply --from-file reminders.csv --key title --dry-run',
      'pm reminders apply --from-file ci.csv --key title --prune --title "[ci]" --dry-run  # lists what it would delete',
      'pm reminders apply --from-file ci.csv --key title --prune --title "[ci]"  # deletes, once you say yes, every reminder not in ci.csv whose title contains [ci] (any case)',
      'pm reminders apply --from-file reminders.csv --key title --dedupe --dry-run  # lists the twins it would delete, keeping the oldest',
    ],
  },
  statuses: {
    list: ['pm statuses list --type property', 'pm statuses list --label let --json label,type'],
    create: [
      'pm statuses create --label "For Let" --type property',
      'pm statuses create --label Active --type contact -q',
    ],
    update: ['pm statuses update a1b2c3d4 --label "To Let"'],
  },
  types: {
    list: ['pm types list', 'pm types list --label tenant --json uuid,label'],
    create: ['pm types create --label Tenant', 'pm types create --label Contractor -q'],
    update: ['pm types update b2c3d4e5 --label Landlord'],
  },
  attachments: {
    list: [
      'pm attachments list --property 3f2a9c1e',
      'pm attachments list --property-where city=leeds --name gas --json name,size,download_url',
      'pm attachments list --expiring "next 60 days" --json name,expires_on',
      'pm attachments list --expired',
    ],
    get: ['pm attachments get 5c1d7e2a', 'pm attachments get 5c1d7e2a --jq .sha256'],
    update: [
      'pm attachments update 5c1d7e2a --expires 2028-03-01',
      'pm attachments update 5c1d7e2a --no-expires',
      'pm attachments update 5c1d7e2a --name gas-safety-2027.pdf --description "Gas Safe record"',
      'pm attachments update 5c1d7e2a --unset expires_on',
    ],
    delete: ['pm attachments delete 5c1d7e2a --yes'],
  },
  competencies: {
    list: ['pm competencies list', 'pm competencies list --label plumb -q'],
    create: ['pm competencies create --label Plumbing', 'pm competencies create --label Photography -q'],
    update: ['pm competencies update c3d4e5f6 --label Electrics'],
  },
};

function generic(r: ResourceDef, verb: Exclude<ExampleVerb, 'group'>): string[] {
  const p = `pm ${r.path}`;
  const id = ID[r.path] ?? '3f2a9c1e';
  switch (verb) {
    case 'list':
      return [`${p} list --created-at -P7D`, `${p} list --json uuid,created_at`, `${p} list --all -o ndjson | wc -l`];
    case 'get':
      return [`${p} get ${id}`, `${p} get ${id} --json`];
    case 'create':
      return [`${p} create --data @${r.singular.replace(/ /g, '-')}.json -q`];
    case 'update':
      return [`${p} update ${id} --data '{}'`];
    case 'delete':
      return [`${p} delete ${id}                          # asks first`, `${p} delete --yes ${id}`];
    case 'apply':
      return [`${p} apply --from-file ${r.path}.csv --key ${matchKeys(r)} --dry-run`];
  }
}

/** The Examples section of `pm <resource> <verb> --help`, as commander prints it after the options. */
export function examples(r: ResourceDef, verb: ExampleVerb): string {
  const own = BY_RESOURCE[r.path] ?? {};
  const lines =
    verb === 'group'
      ? [own.list?.[0], own.create?.[0], own.get?.[1]].filter((x): x is string => x !== undefined)
      : (own[verb] ?? generic(r, verb));
  return lines.length ? `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}` : '';
}
