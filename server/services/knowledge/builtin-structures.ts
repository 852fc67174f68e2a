/**
 * The structures every tenant has, version 1.0.0, written in the same wire form a tenant publishes
 * and checked by the same parser, so a built-in can never hold what a tenant's structure could not.
 *
 * Weights: the identity (name) counts most, then what agents most often need to act on. Contact data
 * (a person's email and phone) is `high` sensitivity, so it never leaves for an outside engine, and
 * may be filled only by clients or from the tenant's own data: an LLM's guess of an address is worse
 * than none. References (employer, manager, owner, organization) are names as stated.
 */
import { parseStructure, type StructureDefinition } from './structure-definition.js';

export const BUILTIN_VERSION = '1.0.0';
export const BUILTIN_TYPES = ['person', 'organization', 'project'] as const;
export type BuiltinType = (typeof BUILTIN_TYPES)[number];

const OWN_DATA_ONLY = ['AGENT_INPUT', 'KG_INFERENCE'];

const name = (title: string) => ({
  type: 'string',
  title,
  minLength: 1,
  maxLength: 200,
  'x-knowledge': { weight: 3, identity: true, sensitivity: 'medium' },
});
const text = (title: string, weight: number, extra: Record<string, unknown> = {}) => ({
  type: 'string',
  title,
  maxLength: 500,
  'x-knowledge': { weight, ...extra },
});

/** The wire bodies (`{schema_version, schema}`); GET shows the parsed definition's frozen copy. */
const BUILTIN_STRUCTURE_BODIES: Readonly<Record<BuiltinType, { schema_version: string; schema: Record<string, unknown> }>> = {
  person: {
    schema_version: BUILTIN_VERSION,
    schema: {
      type: 'object',
      title: 'Person',
      required: ['name'],
      properties: {
        name: name('Full name'),
        email: {
          type: 'string',
          title: 'E-mail address',
          format: 'email',
          maxLength: 254,
          'x-knowledge': { weight: 2, sensitivity: 'high', provenance: OWN_DATA_ONLY, commit_at: 0.9 },
        },
        phone: {
          type: 'string',
          title: 'Phone number',
          maxLength: 50,
          'x-knowledge': { weight: 1, sensitivity: 'high', provenance: OWN_DATA_ONLY, commit_at: 0.9 },
        },
        employer: text('Employer (organization name as stated)', 2),
        job_title: text('Job title', 2),
        location: text('Where the person lives or works', 1, { sensitivity: 'medium' }),
        manager: text('Manager (person name as stated)', 1),
      },
    },
  },
  organization: {
    schema_version: BUILTIN_VERSION,
    schema: {
      type: 'object',
      title: 'Organization',
      required: ['name'],
      properties: {
        name: name('Name'),
        domain: {
          type: 'string',
          title: 'Internet domain',
          maxLength: 253,
          'x-knowledge': { weight: 2, derive: { rule: 'domain_from_url', from: ['website'] } },
        },
        website: { type: 'string', title: 'Website', format: 'uri', maxLength: 2000, 'x-knowledge': { weight: 2 } },
        industry: text('Industry', 1),
        headquarters: text('Headquarters (city or address)', 1),
      },
    },
  },
  project: {
    schema_version: BUILTIN_VERSION,
    schema: {
      type: 'object',
      title: 'Project',
      required: ['name'],
      properties: {
        name: name('Name'),
        owner: text('Owner (person name as stated)', 2),
        organization: text('Organization (name as stated)', 1),
        status: {
          type: 'string',
          title: 'Status',
          enum: ['planned', 'active', 'paused', 'done'],
          'x-knowledge': { weight: 2, provenance: OWN_DATA_ONLY },
        },
        due_date: { type: 'string', title: 'Due date', format: 'date', 'x-knowledge': { weight: 1, provenance: OWN_DATA_ONLY } },
      },
    },
  },
};

function build(type: BuiltinType): StructureDefinition {
  const outcome = parseStructure(type, BUILTIN_STRUCTURE_BODIES[type]);
  // A refused built-in is a programming error: fail at start-up, naming the problems.
  if (!outcome.ok) throw new Error(`built-in structure ${type} is invalid: ${JSON.stringify(outcome.problems)}`);
  return outcome.definition;
}

export const BUILTIN_STRUCTURES: Readonly<Record<BuiltinType, StructureDefinition>> = Object.freeze({
  person: build('person'),
  organization: build('organization'),
  project: build('project'),
});

export const isBuiltinType = (type: string): type is BuiltinType => (BUILTIN_TYPES as readonly string[]).includes(type);
