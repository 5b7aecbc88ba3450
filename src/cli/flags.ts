/**
 * Flags derived from the resource descriptions: the list filters and the input fields of each
 * resource, declared. What their values become (query parameters, bodies) is flag-values.ts.
 * Wire names are snake_case; flags are their kebab-case.
 */
import type { Command } from 'commander';
import { filterFields, inputFields, resourceByPath } from '../resources/index.js';
import type { FilterKind, ResourceDef } from '../resources/types.js';
import { FIELD_KINDS, FILTER_KINDS } from '../core/kinds.js';

export const kebab = (name: string): string => name.replace(/_/g, '-');
/** The key commander stores a flag's value under: has_garage -> hasGarage. */
export const optKey = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The names of a comma-separated flag value ("a, b,,c" -> a, b, c). */
export const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

// ------------------------------------------------------------------ list filters

export function addFilterFlags(cmd: Command, r: ResourceDef): void {
  for (const f of filterFields(r)) {
    const flag = kebab(f.name);
    const kind = FILTER_KINDS[f.filter as FilterKind];
    if (!kind.placeholder) {
      cmd.option(`--${flag}`, kind.help(f));
      cmd.option(`--no-${flag}`, `only those where "${f.description}" is false`);
    } else if (kind.arrayable) cmd.option(`--${flag} <${kind.placeholder(f)}>`, kind.help(f), collect);
    else cmd.option(`--${flag} <${kind.placeholder(f)}>`, kind.help(f));
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
    const kind = FIELD_KINDS[f.kind];
    if (!kind.placeholder) {
      cmd.option(`--${flag}`, kind.help(f, `${req}${def}`));
      cmd.option(`--no-${flag}`, `not: ${f.description}`);
    } else cmd.option(`--${flag} <${kind.placeholder}>`, kind.help(f, `${req}${def}`));
  }
  if (mode === 'create')
    for (const link of r.links ?? []) {
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
