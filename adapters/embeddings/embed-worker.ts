import { workerData } from 'piscina';
import { createEmbedder, type EmbedderConfig } from './index.js';

/**
 * The worker-thread side of `ThreadedEmbedder`: the configured embedder, built once per thread from
 * the configuration the pool was given; each task embeds one batch (or only loads the model).
 */
const embedder = createEmbedder(workerData as EmbedderConfig);

export type EmbedTask = { op: 'init' } | { op: 'embed'; texts: string[] };

export default async function run(task: EmbedTask): Promise<Float32Array[]> {
  if (task.op === 'init') {
    await embedder.init();
    return [];
  }
  return embedder.embed(task.texts);
}
