import { workerData } from 'piscina';
import {
  createWriteAnalysis,
  type WriteAnalysis,
  type WriteAnalysisInput,
  type WriteAnalysisOptions,
} from '../../server/services/memories/write-analysis.js';

/** The worker-thread side of `ThreadedWriteAnalyzer`: each task analyses one batch of writes. */
const analyse = createWriteAnalysis(workerData as WriteAnalysisOptions);

export default function run(inputs: WriteAnalysisInput[]): WriteAnalysis[] {
  return inputs.map(analyse);
}
