import { extractFacts, type Fact } from '../../server/text/facts.js';

/** The worker-thread side of `ThreadedFactReader`: each task reads one run's memory texts. */
export default function run(texts: string[]): Fact[][] {
  return texts.map((text) => extractFacts(text));
}
