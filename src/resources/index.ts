import type {
  EmbedDef,
  FieldDef,
  FieldKind,
  FilterRelation,
  LinkDef,
  RelationDef,
  ResourceDef,
  SetDef,
} from './types.js';

export type * from './types.js';

/** A value the server sets (uuid, timestamps, counts): never accepted in a body. */
const serverSet = (name: string, kind: FieldKind, description: string, extra: Partial<FieldDef>): FieldDef => ({
  name,
  kind,
  description,
  readOnly: true,
  ...extra,
});

/** Fields every record has. */
const common: readonly FieldDef[] = [
  serverSet('uuid', 'text', 'unique identifier', { filter: 'uuid', column: 1 }),
  serverSet('created_at', 'datetime', 'creation time', { filter: 'datetime', example: '-P7D' }),
  serverSet('updated_at', 'datetime', 'last update time', { filter: 'datetime', example: '2026-11-01/P1M' }),
];

const text = (name: string, description: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  name,
  kind: 'text',
  description,
  nullable: true,
  max: 255,
  filter: 'fuzzy',
  ...extra,
});

/** What a text field create requires has: it is never null. */
const required: Partial<FieldDef> = { nullable: false, requiredOnCreate: true };
/** Required on update too: the reference marks a property's address and postcode so. */
const requiredAlways: Partial<FieldDef> = { ...required, requiredOnUpdate: true };

const rooms = (name: string, description: string, column: number): FieldDef => ({
  name,
  kind: 'int',
  description,
  min: 0,
  max: 1000,
  default: 0,
  filter: 'int',
  column,
  example: '3',
});

const flag = (name: string, description: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  name,
  kind: 'bool',
  description,
  default: false,
  filter: 'bool',
  ...extra,
});

/** A field whose value is one of `codes`, given on create. */
const code = (name: string, description: string, codes: FieldDef['codes'], extra: Partial<FieldDef>): FieldDef => ({
  name,
  kind: 'code',
  description,
  requiredOnCreate: true,
  codes,
  filter: 'code',
  ...extra,
});

const counts: readonly FieldDef[] = [
  serverSet('num_attachments', 'int', 'number of attachments', { computed: { count: 'attachments' } }),
  serverSet('num_notes', 'int', 'number of notes', { computed: { count: 'notes' }, column: 5 }),
];

const allVerbs = { list: true, get: true, create: true, update: true, delete: true } as const;

/** The entity codes of the records custom fields and statuses are for. */
const CONTACT = 1;
const PROPERTY = 2;

/** Where a record stands now (For Sale, Active): one status of the record's own entity code, by uuid or label. */
const statusLink = (code: number, shown: number): LinkDef => ({
  name: 'status',
  target: 'statuses',
  column: 'status_id',
  by: ['uuid', 'label'],
  onUpdate: true,
  only: { field: 'type', code },
  filter: true,
  shown,
});

/** A resource's words: its path is also its scope, its plural and (with _) its table. */
const named = (path: string, singular: string) => ({
  path,
  singular,
  plural: path.replace(/-/g, ' '),
  scope: path,
  table: path.replace(/-/g, '_'),
});

export const properties: ResourceDef = {
  ...named('properties', 'property'),
  verbs: allVerbs,
  fields: [
    ...common,
    text('address', 'address line 1', { ...requiredAlways, column: 1, example: 'high street' }),
    text('address2', 'address line 2'),
    text('city', 'city', { column: 2, example: 'leeds' }),
    text('county', 'county'),
    text('postcode', 'postcode', { ...requiredAlways, filter: 'postcode', column: 2, example: 'ls1' }),
    text('type', 'kind of property, e.g. house, apartment, commercial', { column: 4, example: 'house' }),
    rooms('bedrooms', 'number of bedrooms', 3),
    rooms('bathrooms', 'number of bathrooms', 5),
    flag('has_garage', 'has a garage'),
    flag('has_garden', 'has a garden'),
    flag('has_parking', 'has parking'),
    ...counts,
  ],
  customValues: { entity: PROPERTY, column: 'property_id' },
  links: [
    {
      name: 'contact',
      target: 'contacts',
      column: 'contact_id',
      by: ['uuid', 'email'],
      onUpdate: true,
      filter: true,
      ours: { onUpdate: true, filter: true },
    },
    statusLink(PROPERTY, 2),
  ],
};

const contacts: ResourceDef = {
  ...named('contacts', 'contact'),
  verbs: allVerbs,
  fields: [
    ...common,
    text('name', 'full name', { ...required, column: 1, example: 'smith' }),
    text('email', 'email address', { ...required, column: 2, example: '@acme' }),
    text('contact_number', 'telephone number', { column: 3 }),
    text('company', 'company', { column: 4 }),
    text('address', 'address line 1'),
    text('address2', 'address line 2'),
    text('city', 'city'),
    text('county', 'county'),
    text('postcode', 'postcode', { filter: 'postcode' }),
    ...counts,
  ],
  customValues: { entity: CONTACT, column: 'contact_id' },
  links: [
    statusLink(CONTACT, 3),
    { name: 'type', target: 'types', column: 'type_id', by: ['uuid', 'label'], onUpdate: true, filter: true, shown: 2 },
  ],
  sets: [
    {
      name: 'competencies',
      one: 'competency',
      target: 'competencies',
      by: ['uuid', 'label'],
      table: 'contact_competencies',
      column: 'contact_id',
      targetColumn: 'competency_id',
    },
  ],
};

/** The custom field entity types: a code per resource that custom fields attach to. */
export const ENTITY_TYPES: Readonly<Record<number, string>> = Object.fromEntries(
  [contacts, properties].map((r) => [
    (r.customValues as { entity: number }).entity,
    r.singular.charAt(0).toUpperCase() + r.singular.slice(1),
  ]),
);
const CUSTOM_FIELD_TYPES: Readonly<Record<number, string>> = { 1: 'Text' };

/** The resource whose records are the custom fields that other resources' values refer to. */
export const customFields: ResourceDef = {
  ...named('custom-fields', 'custom field'),
  verbs: allVerbs,
  fields: [
    ...common,
    text('name', 'machine-identifiable name (generated from the label when omitted)', { generated: true, column: 1 }),
    text('label', 'human-readable name', { ...required, column: 2 }),
    code('type', 'kind of custom field (1 Text)', CUSTOM_FIELD_TYPES, { column: 4, clientDefault: '1' }),
    code('entity_type', 'the entity the field is used with (1 Contact, 2 Property)', ENTITY_TYPES, {
      column: 3,
      example: '2',
    }),
  ],
  unique: [['entity_type', 'name']],
};

/** The fields of a custom field that its values are found by (entity and name) and shown with. */
export const CUSTOM_FIELD_KEYS = { entity: 'entity_type', name: 'name', label: 'label' } as const;

export const notes: ResourceDef = {
  ...named('notes', 'note'),
  verbs: { list: true, get: true, create: true, update: false, delete: true },
  fields: [...common, text('content', 'text of the note', { ...required, max: 65535, column: 1 })],
  parents: [
    { name: 'property', target: 'properties', column: 'property_id' },
    { name: 'contact', target: 'contacts', column: 'contact_id' },
  ],
  textInput: 'content',
};

export const reminders: ResourceDef = {
  ...named('reminders', 'reminder'),
  verbs: allVerbs,
  fields: [
    ...common,
    text('title', 'title', { ...required, column: 1 }),
    { name: 'description', kind: 'text', description: 'longer description', nullable: true, max: 65535 },
    {
      name: 'due_at',
      kind: 'date_or_datetime',
      description: 'date (all day) or datetime by which it should be done',
      nullable: true,
      filter: 'datetime',
      column: 2,
      allDayFlag: 'anytime',
      example: 'P7D',
    },
    flag('anytime', 'true when due all day rather than at a time', { column: 4 }),
    // Ours: done, and repeating.
    {
      name: 'done_at',
      ours: true,
      kind: 'datetime',
      description: 'when it was done (null: not yet); done on a repeating reminder moves due_at on instead',
      nullable: true,
      filter: 'datetime',
      example: '-P7D',
    },
    serverSet('done', 'bool', 'whether it is done (done_at is set)', {
      computed: { set: 'done_at' },
      filter: 'bool',
      ours: true,
    }),
    {
      name: 'repeat',
      ours: true,
      kind: 'period',
      description: 'how often it repeats, an ISO 8601 period of whole days, weeks, months or years (null: never)',
      nullable: true,
      example: 'P1Y',
    },
    serverSet('last_done_at', 'datetime', 'when a repeating reminder was last done', { nullable: true, ours: true }),
  ],
  // Ours: a reminder may be about one property or one contact; deleting it keeps the reminder.
  links: [
    {
      name: 'property',
      target: 'properties',
      column: 'property_id',
      by: ['uuid'],
      onUpdate: true,
      where: true,
      shown: 3,
      shownAs: 'address',
      ours: { link: true },
    },
    {
      name: 'contact',
      target: 'contacts',
      column: 'contact_id',
      by: ['uuid', 'email'],
      onUpdate: true,
      where: true,
      ours: { link: true },
    },
  ],
  agenda: {
    due: 'due_at',
    title: 'title',
    details: 'description',
    done: 'done_at',
    repeat: 'repeat',
    lastDone: 'last_done_at',
    where: 'property',
  },
};

/**
 * Files that belong to a property or a contact. Their bytes travel apart from the JSON
 * (server/attachments.ts): uploaded under the record they belong to, downloaded and streamed at
 * their own URLs; the fields are the server's to set, but for a name and a description.
 */
export const attachments: ResourceDef = {
  ...named('attachments', 'attachment'),
  // Ours: an update changes the name, the description and expires_on; never the bytes.
  verbs: { list: true, get: true, create: false, update: true, delete: true },
  fields: [
    ...common,
    text('name', 'file name', { ...required, column: 1, example: 'gas-safety' }),
    { name: 'description', kind: 'text', description: 'what the file is', nullable: true, max: 65535, column: 4 },
    {
      name: 'expires_on',
      ours: true,
      expiry: true,
      kind: 'date',
      description: 'the day the document expires, e.g. a certificate (null: never)',
      nullable: true,
      filter: 'datetime',
      column: 3,
      example: 'P60D',
    },
    serverSet('size', 'int', 'size in bytes', { column: 2, unit: 'bytes' }),
    serverSet('mime_type', 'text', 'MIME type, e.g. application/pdf', { column: 5 }),
    serverSet('type', 'text', 'Document, Image, Video or Audio', { column: 6 }),
    serverSet('sha256', 'text', 'SHA-256 digest of the bytes, in hex', {}),
    serverSet('download_url', 'text', 'where the bytes are downloaded (as an attachment)', {
      computed: { link: 'download' },
    }),
    serverSet('stream_url', 'text', 'where the bytes are streamed (inline)', { computed: { link: 'stream' } }),
  ],
  parents: [
    { name: 'property', target: 'properties', column: 'property_id' },
    { name: 'contact', target: 'contacts', column: 'contact_id' },
  ],
  files: true,
};

/** A catalogue of labels that records are filed by (statuses, contact types, competencies). */
const labelled = (description: string, example: string): FieldDef =>
  text('label', description, { ...required, column: 1, example });

const statuses: ResourceDef = {
  ...named('statuses', 'status'),
  verbs: allVerbs,
  fields: [
    ...common,
    labelled('where a contact or a property stands, e.g. For Sale, For Let, Active', 'let'),
    code('type', 'the records it is for (1 Contact, 2 Property)', ENTITY_TYPES, { column: 2, example: 'property' }),
  ],
  labelledBy: ['type', 'label'],
};

const types: ResourceDef = {
  ...named('types', 'contact type'),
  plural: 'contact types',
  verbs: allVerbs,
  fields: [...common, labelled('kind of contact, e.g. Tenant, Landlord, Contractor', 'tenant')],
  labelledBy: ['label'],
};

const competencies: ResourceDef = {
  ...named('competencies', 'competency'),
  verbs: allVerbs,
  fields: [...common, labelled('a skill of a contact, e.g. Photography, Plumbing', 'plumb')],
  labelledBy: ['label'],
};

/** Every resource, in the order commands and docs list them. */
export const RESOURCES: readonly ResourceDef[] = [
  properties,
  contacts,
  customFields,
  notes,
  reminders,
  statuses,
  types,
  competencies,
  attachments,
];

/** Every resource's records, in RESOURCES order, as a sentence names them: "properties, contacts, ... and attachments". */
export const RESOURCE_WORDS: string = ((words) => `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`)(
  RESOURCES.map((r) => r.plural),
);

/** The records a calendar feed publishes (`pm serve`'s /feeds, and `-o ics`): reminders, by their agenda. */
export const CALENDAR_RESOURCE: ResourceDef = RESOURCES.find((r) => r.agenda !== undefined) ?? reminders;

const byPath = new Map(RESOURCES.map((r) => [r.path, r]));

export function resourceByPath(path: string): ResourceDef {
  const r = byPath.get(path);
  if (!r) throw new Error(`unknown resource ${path}`);
  return r;
}

export function fieldOf(resource: ResourceDef, name: string): FieldDef | undefined {
  return resource.fields.find((f) => f.name === name);
}

/** Fields a client may send in a body. */
export function inputFields(resource: ResourceDef): FieldDef[] {
  return resource.fields.filter((f) => !f.readOnly);
}

/** Fields that can be filtered on in a list. */
export function filterFields(resource: ResourceDef): FieldDef[] {
  return resource.fields.filter((f) => f.filter !== undefined);
}

/**
 * The wire name of a record's custom field values, on resources with `customValues`: the body key
 * of a write, the list filter (`custom_fields[name]=...`), the embed and the key it fills.
 */
export const CUSTOM_VALUES_KEY = 'custom_fields';

/** The resource custom fields of entity type `code` attach to. */
export function ownerOfEntity(code: number): ResourceDef | undefined {
  return RESOURCES.find((r) => r.customValues?.entity === code);
}

/**
 * The fields of a related record that `?embed=<relation>` shows (a property's contact, a note's
 * parent, a contact's competencies): its uuid, what it may be named by, and what its records are
 * created with.
 */
export function embeddedFieldsOf(rel: LinkDef | RelationDef | SetDef): string[] {
  const target = resourceByPath(rel.target);
  const made = target.fields.filter((f) => f.requiredOnCreate).map((f) => f.name);
  return [...new Set(['uuid', ...('by' in rel ? rel.by : []), ...made])];
}

/**
 * The links of other resources that name a record of `r` and that their lists filter by (a
 * property's contact): where a record's referrers are found (`<link>[uuid]=<uuid>`).
 */
export function referrersOf(r: ResourceDef): { resource: ResourceDef; link: LinkDef }[] {
  return RESOURCES.flatMap((resource) =>
    (resource.links ?? []).filter((l) => l.target === r.path && l.filter).map((link) => ({ resource, link })),
  );
}

/** The links a write of `mode` may set: every link on create; on update, those given on update too (`onUpdate`). */
export function writableLinks(r: ResourceDef, mode: 'create' | 'update'): LinkDef[] {
  return (r.links ?? []).filter((l) => mode === 'create' || l.onUpdate);
}

/** The read scope of a resource. */
const readScope = (r: ResourceDef) => `${r.scope}.read`;

/**
 * What `?embed=` can add to a record of `r`, in order: its custom values, each record it links to
 * or belongs to (one, or null), each set it holds (a list). Each needs its target's read scope.
 */
export function embedsOf(r: ResourceDef): EmbedDef[] {
  const out: EmbedDef[] = [];
  if (r.customValues) out.push({ name: CUSTOM_VALUES_KEY, kind: 'custom_values', scope: readScope(customFields) });
  for (const relation of linksOf(r)) {
    const target = resourceByPath(relation.target);
    out.push({ name: relation.name, kind: 'one', relation, target, scope: readScope(target) });
  }
  for (const set of r.sets ?? []) {
    const target = resourceByPath(set.target);
    out.push({ name: set.name, kind: 'many', set, target, scope: readScope(target) });
  }
  return out;
}

/** The names `?embed=` takes on `r`. */
export function embedNames(r: ResourceDef): string[] {
  return embedsOf(r).map((e) => e.name);
}

/** The relations a list of `r` filters by (`<name>[<field>]=`): its parents, filtered links, and sets. */
export function filterRelationsOf(r: ResourceDef): FilterRelation[] {
  return [...(r.parents ?? []), ...(r.links ?? []).filter((l) => l.filter || l.where), ...(r.sets ?? [])];
}

/** Whether a relation names its records by `by` fields matched whole (a link or a set), rather than by any filter. */
export const namedBy = (rel: FilterRelation): rel is LinkDef | SetDef => 'by' in rel && !('where' in rel && rel.where);

/** The relations a list of `r` filters by any of the target's filters (`--property`, `--property-where`): parents, and links with `where`. */
export function whereRelationsOf(r: ResourceDef): (RelationDef | LinkDef)[] {
  return [...(r.parents ?? []), ...(r.links ?? []).filter((l) => l.where)];
}

/**
 * The fields a record of `target` may be named by besides its uuid: the `by` fields of every link
 * and set that names such records (a contact by email, a status by label); none for a property.
 */
export function namesOf(target: ResourceDef): string[] {
  const naming = RESOURCES.flatMap((r) => [...(r.links ?? []), ...(r.sets ?? [])]).filter(
    (l) => l.target === target.path,
  );
  return [...new Set(naming.flatMap((l) => l.by))].filter((b) => b !== 'uuid');
}

/** Resources whose records belong to a record of `r` (notes under a property): the nested routes. */
export function childrenOf(r: ResourceDef): { child: ResourceDef; relation: RelationDef }[] {
  return RESOURCES.flatMap((child) =>
    (child.parents ?? []).filter((p) => p.target === r.path).map((relation) => ({ child, relation })),
  );
}

/** The records a record of `r` refers to, each by an id column: its linked records, then its parents. */
export function linksOf(r: ResourceDef): (LinkDef | RelationDef)[] {
  return [...(r.links ?? []), ...(r.parents ?? [])];
}

/** The resources a record of `r` refers to: its parents, linked records, sets, and its custom fields. */
function dependenciesOf(r: ResourceDef): ResourceDef[] {
  const paths = [...linksOf(r), ...(r.sets ?? [])].map((l) => l.target);
  if (r.customValues) paths.push(customFields.path);
  return [...new Set(paths)].map(resourceByPath);
}

/**
 * Every resource, each after the resources its records refer to (a topological sort, otherwise
 * in RESOURCES order): the order to import in, and to create tables in.
 */
export const DEPENDENCY_ORDER: readonly ResourceDef[] = (() => {
  const done: ResourceDef[] = [];
  while (done.length < RESOURCES.length) {
    const next = RESOURCES.find((r) => !done.includes(r) && dependenciesOf(r).every((d) => done.includes(d)));
    if (!next) throw new Error('the resource descriptions refer to each other in a cycle');
    done.push(next);
  }
  return done;
})();

/** Every scope a token can carry. */
export const ALL_SCOPES: readonly string[] = RESOURCES.flatMap((r) => [readScope(r), `${r.scope}.write`]);
