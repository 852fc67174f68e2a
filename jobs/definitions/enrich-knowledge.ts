/**
 * One enrichment run of a knowledge object (`POST /v1/knowledge/{type}/{id}/enrich`): the engines in
 * order, the decisions, and one write of values and log. A job whose run no longer holds the object
 * (it was deleted, or a later trigger took it over after the hold expired) ends without writing.
 */
import { enrichKnowledgeJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

export const enrichKnowledge = bindJob(enrichKnowledgeJob, {
  concurrency: 4,
  lockLifetimeMs: 5 * 60_000,
  retry: { attempts: 3, baseMs: 2_000 },
  async handler(payload, services, job) {
    const outcome = await services.enrichment.run(payload.tenantId, payload.objectId, payload.runId, payload.namespaces);
    if (outcome === 'skipped')
      job.logger.info({ objectId: payload.objectId }, 'enrichment run skipped: the object is gone or held by another run');
  },
});
