import type { z } from 'zod';
import type { Services } from '../../server/container.js';
import type { UserPrincipal } from '../../server/principal.js';
import type { RequestMeta } from '../../server/services/audit.js';
import type { ExportCounts } from '../../server/services/portal/tenant-export.js';
import { toKnowledgeObject } from '../knowledge/wire.js';
import { toMemoryDetail, toMemoryVersion } from '../memories/wire.js';
import type { exportDocument, exportKnowledgeObject, exportMemory } from './privileged-schemas.js';

type ExportServices = Pick<Services, 'portal' | 'memories' | 'clock'>;

/**
 * The export document (`exportDocument`) as JSON text in pieces: the head, then one piece per memory
 * (with its versions) and per knowledge object, then the counts. Each piece is produced only when the
 * writer asks for the next, so what is in memory is one page of the store, whatever the tenant's size.
 * `portal.export` is audited when the generator ends, with the counts and whether it reached the end.
 */
export async function* exportDocumentText(services: ExportServices, principal: UserPrincipal, meta: RequestMeta): AsyncGenerator<string> {
  const { tenantId } = principal;
  const counts: ExportCounts = { memories: 0, versions: 0, knowledgeObjects: 0 };
  let complete = false;
  try {
    const { contradictionPolicy } = await services.memories.settings(tenantId);
    const head: Pick<z.output<typeof exportDocument>, 'format' | 'format_version' | 'tenant_id' | 'exported_at'> = {
      format: 'tenant-memory-export',
      format_version: 1,
      tenant_id: tenantId,
      exported_at: new Date(services.clock()).toISOString(),
    };
    yield `${JSON.stringify(head).slice(0, -1)},"memories":[`;
    for await (const { memory, versions } of services.portal.export.memories(tenantId)) {
      const item: z.output<typeof exportMemory> = {
        ...toMemoryDetail(memory, contradictionPolicy),
        versions: versions.map(toMemoryVersion),
      };
      yield (counts.memories++ === 0 ? '' : ',') + JSON.stringify(item);
      counts.versions += versions.length;
    }
    yield '],"knowledge_objects":[';
    for await (const record of services.portal.export.knowledgeObjects(tenantId)) {
      const { missing_fields: _derived, ...object } = toKnowledgeObject({ record, missingFields: [] });
      const item: z.output<typeof exportKnowledgeObject> = object;
      yield (counts.knowledgeObjects++ === 0 ? '' : ',') + JSON.stringify(item);
    }
    const tail: z.output<typeof exportDocument>['counts'] = {
      memories: counts.memories,
      versions: counts.versions,
      knowledge_objects: counts.knowledgeObjects,
    };
    yield `],"counts":${JSON.stringify(tail)}}`;
    complete = true;
  } finally {
    await services.portal.export.recordExport(principal, counts, complete, meta);
  }
}
