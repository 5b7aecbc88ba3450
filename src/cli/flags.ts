/**
 * Flags derived from the resource descriptions: the list filters and the input fields of each
 * resource, declared. What their values become (query parameters, bodies) is flag-values.ts.
 * Wire names are snake_case; flags are their kebab-case.
 */
import { Option, type Command } from 'commander';
import { filterFields, inputFields, resourceByPath } from '../resources/index.js';
import type { FieldDef, ResourceDef } from '../resources/types.js';

export const kebab = (name: string): string => name.replace(/_/g, '-');
/** The key commander stores a flag's value under: has_garage -> hasGarage. */
export const optKey = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

// ------------------------------------------------------------------ list filters

function filterHelp(f: FieldDef): string {
  switch (f.filter) {
    case 'exact':
      return f.name === 'uuid'
        ? 'only this record (repeatable: any of them)'
        : `${f.description} is VALUE (repeatable)`;
    case 'fuzzy':
      return `${f.description} contains TEXT, ignoring case`;
    case 'postcode':
      return `${f.description} contains TEXT, ignoring case and spaces`;
    case 'int':
      return `${f.description} is N (repeatable: any of them)`;
    case 'code':
      return `${f.description}, by code or name (repeatable: any of them)`;
    case 'datetime':
      return `${f.description} within a range: "last 7 days", "this week", "today", 2026-12-01, 2026-12-01/P1W, -P7D`;
    default:
      return f.description;
  }
}

export function addFilterFlags(cmd: Command, r: ResourceDef): void {
  for (const f of filterFields(r)) {
    const flag = kebab(f.name);
    switch (f.filter) {
      case 'bool':
        cmd.option(`--${flag}`, `only those where "${f.description}" is true`);
        cmd.option(`--no-${flag}`, `only those where "${f.description}" is false`);
        break;
      case 'exact':
      case 'int':
      case 'code':
        cmd.option(
          `--${flag} <${f.kind === 'code' ? 'code' : f.kind === 'int' ? 'n' : f.name === 'uuid' ? 'uuid' : 'value'}>`,
          filterHelp(f),
          collect,
        );
        break;
      case 'datetime':
        cmd.option(`--${flag} <range>`, filterHelp(f));
        break;
      default:
        cmd.option(`--${flag} <text>`, filterHelp(f));
    }
  }
  for (const rel of r.parents ?? []) {
    const target = resourceByPath(rel.target);
    cmd.option(`--${rel.name} <uuid>`, `only those of this ${target.singular} (repeatable: any of them)`, collect);
    cmd.option(
      `--${rel.name}-where <field=value>`,
      `only those whose ${target.singular} matches a ${target.path} filter: city=leeds, bedrooms=3 (repeatable: all apply)`,
      collect,
    );
  }
  if (r.customValues) {
    cmd.option(
      '--custom-field <name=value>',
      'only those whose custom field NAME has a value containing VALUE (NAME=: any value)',
    );
    cmd.option('--custom-value <text>', 'only those with a custom field value containing TEXT');
  }
}

// ------------------------------------------------------------------ input bodies

export function addInputFlags(cmd: Command, r: ResourceDef, mode: 'create' | 'update'): void {
  for (const f of inputFields(r)) {
    const flag = kebab(f.name);
    const req = mode === 'create' && f.requiredOnCreate ? ' (required)' : '';
    const def =
      mode === 'create' && f.default !== undefined
        ? ` (default: ${f.default === false ? 'no' : f.default === true ? 'yes' : f.default})`
        : '';
    switch (f.kind) {
      case 'bool':
        cmd.option(`--${flag}`, `${f.description}${req}${def}`);
        cmd.option(`--no-${flag}`, `not: ${f.description}`);
        break;
      case 'int':
        cmd.option(`--${flag} <n>`, `${f.description}, a whole number ${f.min ?? 0}-${f.max ?? '…'}${req}${def}`);
        break;
      case 'code':
        cmd.option(`--${flag} <code>`, `${f.description}, by code or name${req}`);
        break;
      case 'date_or_datetime':
        cmd.option(`--${flag} <date>`, `${f.description}${req}: "tomorrow 9am", "next monday", "+2h", 2026-12-01`);
        break;
      default:
        cmd.option(`--${flag} <text>`, `${f.description}${f.max ? `, up to ${f.max} characters` : ''}${req}`);
    }
  }
  if (mode === 'create')
    for (const link of r.linkOnCreate ?? []) {
      const target = resourceByPath(link.target);
      cmd.option(`--${link.name} <${link.by.join('|')}>`, `the ${target.singular}, by ${link.by.join(' or ')}`);
    }
  if (r.customValues)
    cmd.option(
      '--custom-field <name=value>',
      'set the value of the custom field named NAME (repeatable; NAME= clears it)',
      collect,
    );
  if (mode === 'update') cmd.option('--unset <field>', 'clear a field: set it to null (repeatable)', collect);
  cmd.option('--data <json>', 'the body as JSON, @file.json, or - for stdin; flags override its fields');
  cmd.option('--dry-run', 'print the request that would be sent, and send nothing');
}

export { Option };
