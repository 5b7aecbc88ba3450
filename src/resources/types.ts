/**
 * The shape of a resource description. Every resource of the API is written once, as data of
 * these types, and the server (routes, validation, SQL) and the CLI (flags, columns, messages)
 * are derived from it.
 */

/** How a field's value is typed on the wire. */
export type FieldKind =
  | 'text' // a string
  | 'int' // an integer
  | 'bool' // a boolean
  | 'datetime' // an ISO 8601 datetime, server-set timestamps
  | 'date_or_datetime' // an ISO 8601 date (all day) or datetime
  | 'date' // an ISO 8601 date (YYYY-MM-DD)
  | 'period' // an ISO 8601 period of whole days, weeks, months or years (P1Y, P6M, P2W, P10D)
  | 'code'; // an object {code, name} whose code picks one of a fixed set

/** How a list endpoint filters on a field. */
export type FilterKind =
  | 'uuid' // a record's uuid, any case; arrayable as name[]; and name_prefix, its first 8 characters or more
  | 'fuzzy' // case-insensitive substring
  | 'postcode' // fuzzy, spaces ignored on both sides
  | 'int' // integer equality; arrayable
  | 'bool' // true/false/1/0
  | 'datetime' // exact datetime, bare date, interval or duration
  | 'code'; // integer equality on an object's code; arrayable

export interface FieldDef {
  /** Wire name, snake_case exactly as the API spells it. */
  readonly name: string;
  readonly kind: FieldKind;
  /** One line for help and docs. */
  readonly description: string;
  /** Set by the server only (uuid, timestamps, counts): never accepted in a body. */
  readonly readOnly?: boolean;
  /**
   * Read-only value the server computes rather than stores: a live count of the records of a child
   * resource (`{ count: 'notes' }`: the notes whose parent is this record), always zero, or the
   * absolute URL of the record's `<uuid>/<link>` path on the server (`{ link: 'download' }`).
   */
  readonly computed?:
    | { readonly count: string }
    | { readonly zero: true }
    | { readonly link: string }
    /** Whether the field `set` (a datetime) has a value: a reminder's `done`, of its done_at. */
    | { readonly set: string };
  /** Whether null is an accepted value on input. */
  readonly nullable?: boolean;
  /** Made by the server when a create does not give it (a custom field's name): never null in an answer. */
  readonly generated?: boolean;
  /** Required on create. */
  readonly requiredOnCreate?: boolean;
  /** Required on update (the reference marks address and postcode so). */
  readonly requiredOnUpdate?: boolean;
  /** Value stored when create omits the field (or sends null where the column is not null). */
  readonly default?: string | number | boolean;
  /**
   * Required by the API, yet with one value to expect: pm sends this (as a person types it) when a
   * create leaves the field out (a custom field's type: 1, Text, the only type there is).
   */
  readonly clientDefault?: string;
  /** Text: maximum length in characters. Int: maximum value. */
  readonly max?: number;
  /** Int: minimum value. */
  readonly min?: number;
  /** Int: what the number counts, when a person reads it better scaled ('bytes': 2.9 MB on a terminal). */
  readonly unit?: 'bytes';
  /** Filter kind on the list endpoint, when the field can be filtered on. */
  readonly filter?: FilterKind;
  /** For kind 'code': the allowed codes and their names. */
  readonly codes?: Readonly<Record<number, string>>;
  /**
   * Shown in a terminal table by default, with this priority: 1 is always shown; when the
   * terminal is too narrow for every column, the highest numbers are hidden first.
   */
  readonly column?: number;
  /** For kind 'date_or_datetime': a bool field set true by a date without time (all day). */
  readonly allDayFlag?: string;
  /** A value of the form that the CLI may put in help text, e.g. "3", "leeds". */
  readonly example?: string;
  /** An extension of the API (the hosted service's docs show none of it): marked so in the OpenAPI document. */
  readonly ours?: boolean;
  /** A date something stops being valid (a certificate's expires_on): lists take --expiring RANGE and --expired. */
  readonly expiry?: boolean;
}

export interface ResourceDef {
  /** The URL path segment and the CLI command name: "properties", "custom-fields". */
  readonly path: string;
  /** The word for one record in messages: "property", "custom field". */
  readonly singular: string;
  /** The word for several records in sentences: "properties", "custom fields". */
  readonly plural: string;
  /** Scope prefix: tokens carry `<scope>.read` and `<scope>.write`. */
  readonly scope: string;
  /** SQL table name. */
  readonly table: string;
  readonly fields: readonly FieldDef[];
  /** Verbs the API offers for this resource. */
  readonly verbs: Readonly<Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>>;
  /**
   * Custom fields attach to this resource: create and update accept `custom_fields: [{name|uuid,
   * value}]`, lists filter on `custom_fields[...]`, and `embed=custom_fields` shows the values.
   */
  readonly customValues?: CustomValuesDef;
  /**
   * Each record belongs to exactly one record of one of these parents: it is created under it
   * (POST /<parent>/{uuid}/<path>), listed by it (`<name>[<filter of parent>]=...`), and deleted
   * with it.
   */
  readonly parents?: readonly RelationDef[];
  /**
   * Records this one refers to by an id column of its own (a property's contact, its status):
   * body input naming exactly one record of `target`, embeds, and (with `filter`) list filters.
   */
  readonly links?: readonly LinkDef[];
  /** Sets of records this one holds (a contact's competencies), kept in a join table. */
  readonly sets?: readonly SetDef[];
  /** Sets of fields unique within an account (a clash is a 409). */
  readonly unique?: readonly (readonly string[])[];
  /**
   * The fields a record is known by, unique within an account (a status: its type and its label):
   * the last, text, compared as a label filter and a body naming a record compare it (ASCII case
   * aside), the others exactly. A clash is a field error (422) naming the last.
   */
  readonly labelledBy?: readonly string[];
  /** An input field long enough to be read from a file or piped stdin on create (a note's content). */
  readonly textInput?: string;
  /**
   * The records are files: their bytes are uploaded under a parent and downloaded apart from the
   * JSON (server/attachments.ts; `pm <path> upload` and `download`), never created from a body.
   */
  readonly files?: boolean;
  /** The records have a date they are due by: `pm <path> due` shows them as an agenda. */
  readonly agenda?: AgendaDef;
}

/** What an agenda shows a record by. */
export interface AgendaDef {
  /** The date_or_datetime field it is due by (its allDayFlag says all day). */
  readonly due: string;
  /** The text field a line of the agenda shows (a calendar event's summary). */
  readonly title: string;
  /** The longer text field a calendar event describes it by. */
  readonly details?: string;
  /** The datetime field saying when it was done: done ones leave the agenda and the calendar. */
  readonly done?: string;
  /**
   * The period field it repeats by: done on a repeating record moves `due` on by one period from
   * its due date (month ends clamped, the time of day kept), sets `lastDone`, and leaves `done` null.
   */
  readonly repeat?: string;
  readonly lastDone?: string;
  /** The link whose record says where it is (a property: its address is an event's LOCATION). */
  readonly where?: string;
}

/** Where a resource's custom field values live. */
export interface CustomValuesDef {
  /** The custom field's entity_type code for this resource (1 contact, 2 property). */
  readonly entity: number;
  /** Column of the custom values table pointing at the owning record. */
  readonly column: string;
}

export interface RelationDef {
  /** Query parameter and flag name: property, contact. */
  readonly name: string;
  /** Target resource path. */
  readonly target: string;
  /** Column of this resource's table holding the target's internal id. */
  readonly column: string;
}

/**
 * As a relation, but `name` is the body field (contact, status), `column` is set to the matched
 * record's id, and a body names the record by one of `by`: `{"uuid": "..."}`, `{"label": "..."}`.
 */
export interface LinkDef extends RelationDef {
  /** Fields of the target that may identify it (exactly one record must match; text without regard to ASCII case). */
  readonly by: readonly string[];
  /** Given on update as well as on create, where null clears it; without this, on create alone. */
  readonly onUpdate?: boolean;
  /** Only records of the target whose code field has this code may be named (a property's status is a Property status). */
  readonly only?: { readonly field: string; readonly code: number };
  /** Lists filter by it: `<name>[<a by field>]=value` matches that field whole, as a body names it. */
  readonly filter?: boolean;
  /** Shown in a terminal table by default, with this priority (as FieldDef.column): the linked record's `by` text. */
  readonly shown?: number;
  /** The field of the linked record a table shows, where it is not one of `by` (a property's address). */
  readonly shownAs?: string;
  /**
   * Lists filter by it as by a parent (`<name>[<any filter of the target's>]=`: `property[city]=`;
   * `--property`, `--property-where`), rather than by its `by` fields whole.
   */
  readonly where?: boolean;
  /**
   * What of the link is this server's own, an extension the hosted service does not have: the
   * whole link (`link`: a reminder's property), given on update (`onUpdate`), a list filter
   * (`filter`). Its docs and the OpenAPI document say so; pm says so when a server refuses it.
   */
  readonly ours?: { readonly link?: boolean; readonly onUpdate?: boolean; readonly filter?: boolean };
}

/**
 * A set of records of `target` that a record holds (a contact's competencies): a list of
 * `{"uuid"}` / `{"label"}` in bodies that replaces the set, an embed of them all, and a list
 * filter `<name>[<a by field>]=` (records holding one that matches whole).
 */
export interface SetDef {
  /** Body field, embed and filter name: competencies. */
  readonly name: string;
  /** The word for one of them, for flags: competency (--competency, --add-competency). */
  readonly one: string;
  readonly target: string;
  readonly by: readonly string[];
  /** The join table, its column holding this record's id, and its column holding the target's. */
  readonly table: string;
  readonly column: string;
  readonly targetColumn: string;
}

/** What `?embed=<name>` adds to a record, how it is loaded, and the read scope it needs. */
export type EmbedDef =
  | { readonly name: string; readonly kind: 'custom_values'; readonly scope: string }
  | {
      readonly name: string;
      readonly kind: 'one';
      readonly relation: LinkDef | RelationDef;
      readonly target: ResourceDef;
      readonly scope: string;
    }
  | {
      readonly name: string;
      readonly kind: 'many';
      readonly set: SetDef;
      readonly target: ResourceDef;
      readonly scope: string;
    };

/**
 * A relation a list filters by, `<name>[<field>]=`: a parent (any filter of the target's, by its
 * own kind), a link or a set (one of its `by` fields, matched whole).
 */
export type FilterRelation = RelationDef | LinkDef | SetDef;
