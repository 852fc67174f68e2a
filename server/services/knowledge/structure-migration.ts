/**
 * A migration plan that makes an incompatible structure version activatable, and its application to
 * one object's fields. Semantics, per field of the new version:
 * - `rename {from, to}` moves a value, FieldValue and all, from a field the new version lacks to a
 *   field the active version lacks;
 * - `drop` removes the values the new version refuses (all of them for a removed field);
 * - `default {field, value}` replaces a refused value and fills a missing value of a required field.
 * A default is the schema author's own statement, so it is written as AGENT_INPUT with confidence 1
 * (engines never overwrite it). A value the new version accepts is never touched except by a rename.
 */
import { z } from 'zod';
import type { FieldIssue } from '../../errors.js';
import { safeText } from '../../schemas/safe-text.js';
import { fieldValueProblems } from './field-values.js';
import type { FieldValue, JsonValue } from './model.js';
import { compareStructures, fieldChanges, type IncompatibleChange } from './structure-compatibility.js';
import { MAX_FIELDS, MAX_FIELD_NAME_LENGTH, type StructureDefinition } from './structure-definition.js';

const fieldName = safeText().min(1, { error: 'must be a field name' }).max(MAX_FIELD_NAME_LENGTH);

/** The wire shape of `POST .../structures/{version}/activate {migration?}`. */
export const migrationPlanSchema = z
  .object({
    rename: z
      .array(z.object({ from: fieldName, to: fieldName }).strict())
      .max(MAX_FIELDS)
      .optional(),
    drop: z.array(fieldName).max(MAX_FIELDS).optional(),
    default: z
      .array(z.object({ field: fieldName, value: z.json() }).strict())
      .max(MAX_FIELDS)
      .optional(),
  })
  .strict();
export type MigrationPlan = z.infer<typeof migrationPlanSchema>;

/** A plan checked against both versions; only planMigration makes one. */
export interface Migration {
  fromVersion: string;
  toVersion: string;
  renames: readonly { from: string; to: string }[];
  drops: ReadonlySet<string>;
  defaults: ReadonlyMap<string, JsonValue>;
}

export type MigrationPlanOutcome = { ok: true; migration: Migration } | { ok: false; problems: FieldIssue[] };

export interface TouchedField {
  /** The field's name in the new version. */
  field: string;
  action: 'renamed' | 'dropped' | 'defaulted';
  /** The value before the migration (null when a default filled an empty field). */
  previous: FieldValue | null;
  /** For a rename: the old name. */
  from?: string;
}

/**
 * Checks `plan` (absent: none) against the change from `active` to `next`: every entry must make
 * sense and every incompatible change must be covered. Problems list both kinds.
 */
export function planMigration(active: StructureDefinition, next: StructureDefinition, plan: MigrationPlan = {}): MigrationPlanOutcome {
  const problems: FieldIssue[] = [];
  const renames = checkRenames(active, next, plan, problems);
  const renamedTo = new Map(renames.map((r) => [r.to, r.from]));
  const drops = checkDrops(active, renamedTo, plan, problems);
  const defaults = checkDefaults(next, plan, problems);
  const uncovered = (change: IncompatibleChange, how: string) =>
    problems.push({ field: `schema.properties.${change.field}`, message: `${change.message}; needs ${how} in the migration plan` });

  const renamedFrom = new Set(renames.map((r) => r.from));
  for (const change of compareStructures(active, next)) {
    const { field } = change;
    if (change.kind === 'field_removed' && !renamedFrom.has(field) && !drops.has(field)) uncovered(change, 'a drop or a rename');
    if (
      change.kind === 'required_added' &&
      !defaults.has(field) &&
      !(renamedTo.has(field) && active.fields[renamedTo.get(field)!]!.required)
    ) {
      uncovered(change, renamedTo.has(field) ? `a default (renamed from the optional '${renamedTo.get(field)}')` : 'a default or a rename');
    }
    if (['type_changed', 'constraint_narrowed', 'cardinality_changed'].includes(change.kind) && !drops.has(field) && !defaults.has(field)) {
      uncovered(change, 'a drop or a default');
    }
  }
  for (const { from, to } of renames) {
    for (const change of fieldChanges(active.fields[from]!, next, to)) {
      if (change.kind !== 'required_added' && !drops.has(to) && !defaults.has(to))
        uncovered(change, `a drop or a default (renamed from '${from}')`);
    }
  }
  // Identity carries an object's link to the memory graph; only a rename keeps it meaning the same.
  const carried = active.identityFields.map((f) => renames.find((r) => r.from === f)?.to ?? f);
  if ([...carried].sort().join() !== [...next.identityFields].sort().join()) {
    problems.push({
      field: 'schema.properties',
      message: `identity fields change from [${active.identityFields.join(', ')}] to [${next.identityFields.join(', ')}]; a migration can only carry them by rename`,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, migration: { fromVersion: active.version, toVersion: next.version, renames, drops, defaults } };
}

function checkRenames(active: StructureDefinition, next: StructureDefinition, plan: MigrationPlan, problems: FieldIssue[]) {
  const used = new Set<string>();
  const renames: { from: string; to: string }[] = [];
  (plan.rename ?? []).forEach(({ from, to }, i) => {
    const before = problems.length;
    const at = `migration.rename.${i}`;
    if (!Object.hasOwn(active.fields, from)) problems.push({ field: `${at}.from`, message: `names no field of ${active.version}` });
    else if (Object.hasOwn(next.fields, from)) problems.push({ field: `${at}.from`, message: `'${from}' still exists in ${next.version}` });
    if (!Object.hasOwn(next.fields, to)) problems.push({ field: `${at}.to`, message: `names no field of ${next.version}` });
    else if (Object.hasOwn(active.fields, to)) problems.push({ field: `${at}.to`, message: `'${to}' already exists in ${active.version}` });
    for (const [name, side] of [
      [from, 'from'],
      [to, 'to'],
    ] as const) {
      if (used.has(`${side}:${name}`)) problems.push({ field: `${at}.${side}`, message: `'${name}' is renamed twice` });
      used.add(`${side}:${name}`);
    }
    if ((plan.drop ?? []).includes(from)) problems.push({ field: `${at}.from`, message: `'${from}' is both renamed and dropped` });
    if (problems.length === before) renames.push({ from, to });
  });
  return renames;
}

function checkDrops(active: StructureDefinition, renamedTo: Map<string, string>, plan: MigrationPlan, problems: FieldIssue[]): Set<string> {
  const drops = new Set<string>();
  (plan.drop ?? []).forEach((name, i) => {
    const at = `migration.drop.${i}`;
    if (!Object.hasOwn(active.fields, name) && !renamedTo.has(name))
      problems.push({ field: at, message: `names no field of ${active.version}` });
    else if (drops.has(name)) problems.push({ field: at, message: `'${name}' is dropped twice` });
    else drops.add(name);
  });
  return drops;
}

function checkDefaults(next: StructureDefinition, plan: MigrationPlan, problems: FieldIssue[]): Map<string, JsonValue> {
  const defaults = new Map<string, JsonValue>();
  (plan.default ?? []).forEach(({ field, value }, i) => {
    const at = `migration.default.${i}`;
    if (!Object.hasOwn(next.fields, field))
      return void problems.push({ field: `${at}.field`, message: `names no field of ${next.version}` });
    if (defaults.has(field)) return void problems.push({ field: `${at}.field`, message: `'${field}' has two defaults` });
    if (next.fields[field]!.annotation.identity) {
      return void problems.push({
        field: `${at}.field`,
        message: 'an identity field takes no default: every object would get the same identity',
      });
    }
    if (value === null) return void problems.push({ field: `${at}.value`, message: 'a default must be a value' });
    const refused = fieldValueProblems(next, field, value);
    if (refused.length > 0)
      return void problems.push(...refused.map((p) => ({ field: `${at}.value`, message: `${p.field}: ${p.message}` })));
    defaults.set(field, value);
  });
  return defaults;
}

/**
 * One object's fields moved to `next` by `migration`: untouched FieldValues are kept as they are (the
 * same objects), each touched field is reported with its previous value for the log.
 */
export function migrateFields(
  fields: Readonly<Record<string, FieldValue>>,
  migration: Migration,
  next: StructureDefinition,
  at: string,
): { fields: Record<string, FieldValue>; touched: TouchedField[] } {
  if (next.version !== migration.toVersion) throw new Error(`migration to ${migration.toVersion} applied with ${next.version}`);
  const out: Record<string, FieldValue> = {};
  const touched: TouchedField[] = [];
  const renameOf = new Map(migration.renames.map((r) => [r.from, r.to]));
  for (const [name, value] of Object.entries(fields)) {
    const to = renameOf.get(name);
    if (to !== undefined) {
      out[to] = value;
      touched.push({ field: to, action: 'renamed', previous: value, from: name });
    } else if (Object.hasOwn(next.fields, name)) out[name] = value;
    else touched.push({ field: name, action: 'dropped', previous: value });
  }
  for (const name of next.fieldNames) {
    const current = Object.hasOwn(out, name) ? out[name] : undefined;
    const fallback = migration.defaults.get(name);
    const defaulted: FieldValue | undefined =
      fallback === undefined ? undefined : { value: fallback, confidence: 1, provenance: 'AGENT_INPUT', updatedAt: at };
    if (current) {
      // A known-none marker holds no value to refuse.
      if (current.knownNone || fieldValueProblems(next, name, current.value).length === 0) continue;
      if (defaulted) out[name] = defaulted;
      else delete out[name];
      touched.push({ field: name, action: defaulted ? 'defaulted' : 'dropped', previous: current });
    } else if (defaulted && next.fields[name]!.required) {
      out[name] = defaulted;
      touched.push({ field: name, action: 'defaulted', previous: null });
    }
  }
  return { fields: out, touched };
}
