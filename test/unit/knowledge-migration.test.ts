import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedKnowledgeObjectStore } from '../../adapters/embedded/knowledge-object-store.js';
import { createEmbeddedKnowledgeStructureStore } from '../../adapters/embedded/knowledge-structure-store.js';
import { AppError } from '../../server/errors.js';
import type { AuditInput } from '../../server/services/audit.js';
import { BUILTIN_STRUCTURES } from '../../server/services/knowledge/builtin-structures.js';
import { createKnowledgeService } from '../../server/services/knowledge/knowledge-service.js';

/**
 * Activating an incompatible person@2.0.0 over 1,000 objects of the built-in version, on the embedded
 * store: every AGENT_INPUT value the new version still accepts is kept exactly (value, provenance,
 * confidence, time), renamed values move with their provenance, and each touched field is logged.
 */
function stack() {
  const db = openInMemoryDatabase();
  const audited: AuditInput[] = [];
  const objects = createEmbeddedKnowledgeObjectStore(db);
  let now = Date.UTC(2031, 0, 1);
  const service = createKnowledgeService({
    structures: createEmbeddedKnowledgeStructureStore(db),
    objects,
    audit: { record: async (e) => void audited.push(e) as never },
    usage: {
      writeQuota: async () => ({ period: '2031-01', writes: null, storageBytes: null, memories: null }),
      quotaExceeded: () => new AppError('QUOTA_EXCEEDED', 'storage'),
    },
    clock: () => (now += 1000),
  });
  return { service, objects, audited };
}

const by = { actor: { keyId: 'k1' }, ip: null, userAgent: null };

describe('migrating 1,000 objects to an incompatible version', () => {
  it('keeps every AGENT_INPUT value the new version accepts, renames with provenance, and logs each touched field', async () => {
    const { service, objects } = stack();
    const created = [];
    for (let i = 0; i < 1000; i++) {
      const fields: Record<string, unknown> = { name: `Person ${i}` };
      if (i % 2 === 0) fields.employer = `Org ${i % 17}`;
      if (i % 3 === 0) fields.location = `City ${i % 11}`;
      if (i % 5 === 0) fields.job_title = i % 10 === 0 ? 'x'.repeat(150) : `Title ${i}`;
      created.push((await service.create('t1', 'person', { fields })).record);
    }
    // 2.0.0: `location` renamed `city`, `job_title` narrowed to 100 characters, `manager` removed.
    const base = structuredClone(BUILTIN_STRUCTURES.person.schema) as any;
    base.properties.city = base.properties.location;
    delete base.properties.location;
    delete base.properties.manager;
    base.properties.job_title = { ...base.properties.job_title, maxLength: 100 };
    await service.publishStructure('t1', 'person', { schema_version: '2.0.0', schema: base }, by);
    await expect(service.activateStructure('t1', 'person', '2.0.0', undefined, by)).rejects.toMatchObject({ code: 'INCOMPATIBLE_SCHEMA' });
    const plan = { rename: [{ from: 'location', to: 'city' }], drop: ['manager', 'job_title'] };
    await service.activateStructure('t1', 'person', '2.0.0', plan, by);

    let kept = 0;
    for (const before of created) {
      const after = (await service.get('t1', 'person', before.id)).record;
      expect(after.schemaVersion).toBe('2.0.0');
      for (const [name, value] of Object.entries(before.fields)) {
        if (name === 'location') expect(after.fields.city).toEqual(value);
        else if (name === 'job_title' && String(value.value).length > 100) expect(after.fields.job_title).toBeUndefined();
        else {
          expect(after.fields[name], `${before.id}.${name}`).toEqual(value);
          kept++;
        }
      }
      const log = (await objects.log('t1', before.id, { after: null, runId: null, limit: 100 }))!;
      const touched = Object.keys(before.fields).filter(
        (n) => n === 'location' || (n === 'job_title' && String(before.fields[n]!.value).length > 100),
      );
      expect(log.map((e) => e.field).sort()).toEqual(touched.map((n) => (n === 'location' ? 'city' : n)).sort());
      expect(log.every((e) => e.engine === 'migration' && e.outcome === 'committed')).toBe(true);
    }
    expect(kept).toBeGreaterThan(1500);
    const versions = (await service.structures('t1', 'person')).map((s) => [s.version, s.status]);
    expect(versions).toEqual([
      ['1.0.0', 'DEPRECATED'],
      ['2.0.0', 'ACTIVE'],
    ]);
  }, 60_000);
});
