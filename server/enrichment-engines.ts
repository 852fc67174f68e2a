/**
 * The enrichment engines as configured, in the order a run tries them (issue #23 §4): the offline
 * `rule` and `kg`, the `llm` when an endpoint is configured, and `web`, which each tenant turns on.
 * Part of the composition root: it alone binds the engines to their adapters (the chat client, the
 * SSRF-safe page fetcher, the fact reader's threads).
 */
import { ChatJsonClient } from '../adapters/llm/chat-json-client.js';
import { ThreadedFactReader } from '../adapters/threads/fact-reader.js';
import { createPageFetcher } from '../adapters/web/page-fetcher.js';
import type { Config } from './config.js';
import type { EnrichmentEngine } from './ports/enrichment-engine.js';
import type { StoragePorts } from './ports/index.js';
import { createKgEngine } from './services/knowledge/engines/kg-engine.js';
import { createLlmEngine } from './services/knowledge/engines/llm-engine.js';
import { createRuleEngine } from './services/knowledge/engines/rule-engine.js';
import { createWebEngine } from './services/knowledge/engines/web-engine.js';

export interface ConfiguredEngines {
  engines: EnrichmentEngine[];
  /** Releases the page fetcher's connections and the fact reader's threads. */
  close(): Promise<void>;
}

export function configuredEnrichmentEngines(
  config: Config,
  ports: Pick<StoragePorts, 'searchIndex' | 'memories' | 'knowledgeObjects' | 'knowledgeSettings'>,
): ConfiguredEngines {
  // The SSRF boundary of the web engine: public addresses only unless the operator allows others.
  const pages = createPageFetcher({
    allowPrivateAddresses: config.WEB_ENRICHMENT_ALLOW_PRIVATE,
    allowedRanges: config.WEB_ENRICHMENT_ALLOWED_RANGES,
    timeoutMs: config.WEB_ENRICHMENT_TIMEOUT_MS,
    maxBytes: config.WEB_ENRICHMENT_MAX_BYTES,
    maxRedirects: config.WEB_ENRICHMENT_MAX_REDIRECTS,
  });
  const completion =
    config.LLM_URL && config.KNOWLEDGE_LLM_ENRICHMENT
      ? new ChatJsonClient({
          url: config.LLM_URL,
          timeoutMs: config.KNOWLEDGE_LLM_TIMEOUT_MS,
          model: config.LLM_MODEL ?? 'gpt-4o-mini',
          apiKey: config.LLM_API_KEY,
        })
      : null;
  // Fact extraction is most of a kg run's CPU: on its own thread it leaves this one to requests and writes.
  const facts = config.KNOWLEDGE_FACT_THREADS > 0 ? new ThreadedFactReader(config.KNOWLEDGE_FACT_THREADS) : undefined;
  const engines = [
    createRuleEngine(),
    createKgEngine({ index: ports.searchIndex, memories: ports.memories, objects: ports.knowledgeObjects, ...(facts ? { facts } : {}) }),
    ...(completion ? [createLlmEngine({ index: ports.searchIndex, memories: ports.memories, completion })] : []),
    createWebEngine({ pages, settings: ports.knowledgeSettings }),
  ];
  return {
    engines,
    close: async () => {
      await pages.close();
      await facts?.close();
    },
  };
}
