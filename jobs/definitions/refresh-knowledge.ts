/**
 * Re-enrichment of a knowledge object that newly consolidated memories name (`knowledge.refresh`,
 * queued unique per object and debounced by `server/services/knowledge/knowledge-refresh.ts`): starts
 * an ordinary `knowledge.enrich` run unless the object is gone, opted out, or held by a live run.
 */
import { refreshKnowledgeJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

export const refreshKnowledge = bindJob(refreshKnowledgeJob, {
  concurrency: 4,
  lockLifetimeMs: 60_000,
  retry: { attempts: 5, baseMs: 1_000 },
  async handler(payload, services, job) {
    const outcome = await services.knowledgeRefresh.run(payload.tenantId, payload.objectId, payload.after);
    if (outcome !== 'queued') job.logger.debug({ objectId: payload.objectId, outcome }, 'knowledge refresh started no run');
  },
});
