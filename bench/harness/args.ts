/**
 * Command-line arguments of the retrieval benchmark, parsed with commander.
 *
 * The flags are the spec's (`--api-url`, `--tenant`, `--search-mode`, `--graph`, `--k`,
 * `--output-format`, `--dataset-path`, `--harness-dir`) plus harness knobs (`--quiet`, the three
 * `--min-*` thresholds for `passed`, `--limit-conversations`).
 *
 * `parseBenchArgs` never exits and never prints: it returns options, help text, or a usage error, and
 * the bin decides (help → stdout, exit 0; usage error → stderr, exit `USAGE_EXIT_CODE` = 2, the
 * conventional status for bad usage). That keeps it testable and keeps process control in one place.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_THRESHOLDS, type Thresholds } from './report.js';

export const SEARCH_MODES = ['vector-only', 'hybrid', 'hybrid+graph'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export const OUTPUT_FORMATS = ['json', 'text'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const USAGE_EXIT_CODE = 2;
export const DEFAULT_K = 10;
export const DEFAULT_HARNESS_DIR = '.harness';

export interface BenchOptions {
  apiUrl: string;
  tenant: string;
  searchMode: SearchMode;
  /**
   * Graph retrieval context on: `--graph`, or implied by `--search-mode hybrid+graph` (that mode is
   * graph retrieval), so the report's `graph` never says false for a graph search.
   */
  graph: boolean;
  k: number;
  outputFormat: OutputFormat;
  /** Unset → download the public dataset (falling back to synthetic data). */
  datasetPath?: string;
  harnessDir: string;
  quiet: boolean;
  thresholds: Thresholds;
  /** Unset → all conversations. */
  limitConversations?: number;
}

export type ParseBenchArgsResult =
  | { kind: 'options'; options: BenchOptions }
  /** `--help`: print `text` to stdout and exit 0. */
  | { kind: 'help'; text: string }
  /** Bad usage: print `message` and `usage` to stderr and exit `exitCode` (2). */
  | { kind: 'usage-error'; message: string; usage: string; exitCode: typeof USAGE_EXIT_CODE };

// Option-argument parsers. Throwing InvalidArgumentError makes commander report
// "option '--k <n>' argument 'x' is invalid. <our text>".

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('It must be a positive integer.');
  }
  return n;
}

function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError('It must be a number from 0 to 1.');
  }
  return n;
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('It must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('It must be an absolute http(s) URL.');
  }
  return value;
}

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('It must not be empty.');
  return value;
}

function buildProgram(name: string): Command {
  const t = DEFAULT_THRESHOLDS;
  return (
    new Command(name)
      .description(
        'Run the LoCoMo question-and-answer retrieval benchmark against a test environment and print ' +
          'recall@10, MRR and nDCG@10. The API key comes from the SERVICE_API_KEY environment variable.',
      )
      .addOption(new Option('--api-url <url>', 'API base URL of the test environment').argParser(httpUrl).makeOptionMandatory())
      .addOption(new Option('--tenant <id>', 'tenant id holding the test data').argParser(nonEmpty).makeOptionMandatory())
      .addOption(new Option('--search-mode <mode>', 'search mode').choices(SEARCH_MODES).default('hybrid'))
      .addOption(new Option('--graph', 'enable graph retrieval context (implied by --search-mode hybrid+graph)'))
      .addOption(
        new Option('--k <n>', 'results to retrieve per question; scores are cut at k (keys keep the spec names recall@10/ndcg@10)')
          .argParser(positiveInt)
          .default(DEFAULT_K),
      )
      .addOption(new Option('--output-format <format>', 'result format on stdout').choices(OUTPUT_FORMATS).default('json'))
      .addOption(
        new Option(
          '--dataset-path <path>',
          'LoCoMo-format JSON file; when not set the public locomo10.json is downloaded into <harness-dir>/datasets/ ' +
            '(falling back to synthetic smoke-test data if that fails)',
        ).argParser(nonEmpty),
      )
      .addOption(
        new Option('--harness-dir <dir>', 'harness directory containing datasets/').argParser(nonEmpty).default(DEFAULT_HARNESS_DIR),
      )
      .addOption(new Option('-q, --quiet', 'no progress bar on stderr (it is also off when stderr is not a terminal)'))
      .addOption(new Option('--min-recall <x>', 'passed needs overall recall@10 >= x (0 to 1)').argParser(unitInterval).default(t.recall))
      .addOption(new Option('--min-mrr <x>', 'passed needs overall MRR >= x (0 to 1)').argParser(unitInterval).default(t.mrr))
      .addOption(new Option('--min-ndcg <x>', 'passed needs overall nDCG@10 >= x (0 to 1)').argParser(unitInterval).default(t.ndcg))
      .addOption(new Option('--limit-conversations <n>', 'use only the first n conversations (quick runs)').argParser(positiveInt))
      .helpOption('-h, --help', 'show this help')
      .addHelpText(
        'after',
        [
          '',
          'Output (json): {mode, graph, scores: {recall@10, mrr, ndcg@10},',
          '  total_queries, passed, k, dataset, per_category, latency_ms, ...}.',
          '  Scores are computed at --k; the key names stay recall@10 and ndcg@10.',
          'passed: at least one question scored and all three overall scores at or',
          '  above the --min-* thresholds.',
          'Only LoCoMo categories 1-4 are scored; 5 (adversarial) is excluded.',
          '',
          'Environment: SERVICE_API_KEY (API key); LOCOMO_URL, LOCOMO_SHA256',
          '  (override the dataset download address and its expected SHA-256).',
          `Exit status ${USAGE_EXIT_CODE} on a usage error.`,
        ].join('\n'),
      )
      // Throw CommanderError instead of calling process.exit; output is redirected by the caller.
      .exitOverride()
  );
}

interface RawOpts {
  apiUrl: string;
  tenant: string;
  searchMode: SearchMode;
  graph?: boolean;
  k: number;
  outputFormat: OutputFormat;
  datasetPath?: string;
  harnessDir: string;
  quiet?: boolean;
  minRecall: number;
  minMrr: number;
  minNdcg: number;
  limitConversations?: number;
}

/**
 * Parse the user arguments (`process.argv.slice(2)`, i.e. without node and the script path).
 * `programName` only changes the name shown in usage and help.
 */
export function parseBenchArgs(argv: readonly string[], programName = 'bench'): ParseBenchArgsResult {
  const program = buildProgram(programName);
  // Help text is captured from commander's own writer so the bin can print it where it wants.
  let helpText = '';
  program.configureOutput({
    writeOut: (s) => {
      helpText += s;
    },
    writeErr: () => undefined,
    outputError: () => undefined,
  });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help') {
        return { kind: 'help', text: helpText || program.helpInformation() };
      }
      return { kind: 'usage-error', message: err.message, usage: program.helpInformation(), exitCode: USAGE_EXIT_CODE };
    }
    throw err;
  }
  const o = program.opts<RawOpts>();
  const options: BenchOptions = {
    apiUrl: o.apiUrl,
    tenant: o.tenant,
    searchMode: o.searchMode,
    graph: o.graph === true || o.searchMode === 'hybrid+graph',
    k: o.k,
    outputFormat: o.outputFormat,
    harnessDir: o.harnessDir,
    quiet: o.quiet === true,
    thresholds: { recall: o.minRecall, mrr: o.minMrr, ndcg: o.minNdcg },
  };
  if (o.datasetPath !== undefined) options.datasetPath = o.datasetPath;
  if (o.limitConversations !== undefined) options.limitConversations = o.limitConversations;
  return { kind: 'options', options };
}
