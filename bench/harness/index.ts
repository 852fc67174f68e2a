/**
 * Public API of the retrieval benchmark harness (the parts that do not talk to the server).
 * The run loop and the bin entry import from here.
 */
export { parseBenchArgs, SEARCH_MODES, OUTPUT_FORMATS, USAGE_EXIT_CODE, DEFAULT_K, DEFAULT_HARNESS_DIR } from './args.js';
export type { BenchOptions, ParseBenchArgsResult, SearchMode, OutputFormat } from './args.js';
export {
  loadDataset,
  parseDataset,
  normaliseEvidence,
  resolveEvidence,
  parseSessionDate,
  limitConversations,
  datasetCounts,
  turnKey,
  DatasetError,
} from './dataset.js';
export type { Dataset, Conversation, Turn, Question } from './dataset.js';
export { generateSyntheticDataset, generateSyntheticLocomo, syntheticLocomoJson, SYNTHETIC_SOURCE } from './synthetic.js';
export type { SyntheticOptions, RawLocomoEntry } from './synthetic.js';
export { obtainLocomo, cachedDatasetPath, LOCOMO_URL, LOCOMO_SHA256, DEFAULT_DOWNLOAD_TIMEOUT_MS } from './download.js';
export type { DownloadOptions, DownloadResult } from './download.js';
export { resolveDataset } from './resolve.js';
export type { ResolveOptions, ResolvedDataset } from './resolve.js';
export { recallAtK, reciprocalRank, ndcgAtK, scoreQuery, aggregateScores, dedupeRanked, percentile, CATEGORY_NAMES } from './metrics.js';
export type { ScoredCategory, QueryScore, MeanScores, AggregateScores } from './metrics.js';
export { scoreRun, renderJson, renderText, DEFAULT_THRESHOLDS } from './report.js';
export type { BenchResult, QueryOutcome, ScoreRunInput, Thresholds } from './report.js';
export { createProgress } from './progress.js';
export type { Progress, ProgressOptions } from './progress.js';
