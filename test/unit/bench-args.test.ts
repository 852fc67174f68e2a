import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, USAGE_EXIT_CODE, type BenchOptions } from '../../bench/harness/args.js';
import { createProgress } from '../../bench/harness/progress.js';
import { DEFAULT_THRESHOLDS } from '../../bench/harness/report.js';

const REQUIRED = ['--api-url', 'http://127.0.0.1:3000', '--tenant', 'tenant-1'];

function ok(argv: string[]): BenchOptions {
  const r = parseBenchArgs(argv);
  if (r.kind !== 'options') throw new Error(`expected options, got ${r.kind}: ${'message' in r ? r.message : ''}`);
  return r.options;
}

function usageError(argv: string[]): string {
  const r = parseBenchArgs(argv);
  if (r.kind !== 'usage-error') throw new Error(`expected a usage error, got ${r.kind}`);
  expect(r.exitCode).toBe(2);
  expect(r.usage).toContain('Usage:');
  return r.message;
}

describe('parseBenchArgs', () => {
  it('applies the documented defaults', () => {
    expect(ok(REQUIRED)).toEqual({
      apiUrl: 'http://127.0.0.1:3000',
      tenant: 'tenant-1',
      searchMode: 'hybrid',
      graph: false,
      k: 10,
      outputFormat: 'json',
      harnessDir: '.harness',
      quiet: false,
      thresholds: { ...DEFAULT_THRESHOLDS },
    });
    expect(DEFAULT_THRESHOLDS).toEqual({ recall: 0.5, mrr: 0.3, ndcg: 0.35 });
  });

  it('reads every flag', () => {
    expect(
      ok([
        ...REQUIRED,
        '--search-mode',
        'vector-only',
        '--graph',
        '--k=25',
        '--output-format',
        'text',
        '--dataset-path',
        '/data/locomo.json',
        '--harness-dir',
        '/tmp/h',
        '--quiet',
        '--min-recall',
        '0.7',
        '--min-mrr',
        '0',
        '--min-ndcg',
        '1',
        '--limit-conversations',
        '2',
      ]),
    ).toEqual({
      apiUrl: 'http://127.0.0.1:3000',
      tenant: 'tenant-1',
      searchMode: 'vector-only',
      graph: true,
      k: 25,
      outputFormat: 'text',
      datasetPath: '/data/locomo.json',
      harnessDir: '/tmp/h',
      quiet: true,
      thresholds: { recall: 0.7, mrr: 0, ndcg: 1 },
      limitConversations: 2,
    });
    expect(ok([...REQUIRED, '-q']).quiet).toBe(true);
  });

  it('graph is implied by hybrid+graph', () => {
    expect(ok([...REQUIRED, '--search-mode', 'hybrid+graph'])).toMatchObject({ searchMode: 'hybrid+graph', graph: true });
    expect(ok([...REQUIRED, '--search-mode', 'hybrid']).graph).toBe(false);
  });

  it('is stateless between calls', () => {
    ok([...REQUIRED, '--k', '3', '--graph']);
    expect(ok(REQUIRED)).toMatchObject({ k: 10, graph: false });
  });

  it.each([
    ['missing --api-url', ['--tenant', 't'], "error: required option '--api-url <url>' not specified"],
    ['missing --tenant', ['--api-url', 'http://x'], "error: required option '--tenant <id>' not specified"],
    ['non-URL api-url', ['--api-url', 'localhost:3000', '--tenant', 't'], "option '--api-url <url>' argument 'localhost:3000' is invalid"],
    ['non-http api-url', ['--api-url', 'ftp://host', '--tenant', 't'], 'It must be an absolute http(s) URL.'],
    ['empty tenant', ['--api-url', 'http://x', '--tenant', ' '], "option '--tenant <id>' argument ' ' is invalid. It must not be empty."],
    ['bad search mode', [...REQUIRED, '--search-mode', 'graph'], 'Allowed choices are vector-only, hybrid, hybrid+graph.'],
    ['k zero', [...REQUIRED, '--k', '0'], "option '--k <n>' argument '0' is invalid. It must be a positive integer."],
    ['k negative', [...REQUIRED, '--k', '-3'], 'It must be a positive integer.'],
    ['k fractional', [...REQUIRED, '--k', '2.5'], 'It must be a positive integer.'],
    ['k not a number', [...REQUIRED, '--k', 'ten'], 'It must be a positive integer.'],
    ['k without value', [...REQUIRED, '--k'], "error: option '--k <n>' argument missing"],
    ['bad output format', [...REQUIRED, '--output-format', 'yaml'], 'Allowed choices are json, text.'],
    ['empty dataset path', [...REQUIRED, '--dataset-path', ''], "option '--dataset-path <path>' argument '' is invalid"],
    [
      'threshold above 1',
      [...REQUIRED, '--min-recall', '1.5'],
      "option '--min-recall <x>' argument '1.5' is invalid. It must be a number from 0 to 1.",
    ],
    ['threshold not a number', [...REQUIRED, '--min-mrr', 'high'], 'It must be a number from 0 to 1.'],
    ['threshold negative', [...REQUIRED, '--min-ndcg', '-0.1'], 'It must be a number from 0 to 1.'],
    ['limit zero', [...REQUIRED, '--limit-conversations', '0'], 'It must be a positive integer.'],
    ['unknown option', [...REQUIRED, '--verbose'], "error: unknown option '--verbose'"],
    ['stray argument', [...REQUIRED, 'extra'], 'error: too many arguments'],
  ])('%s → usage error', (_name, argv, expected) => {
    expect(usageError(argv)).toContain(expected);
  });

  it('returns help text instead of exiting', () => {
    const r = parseBenchArgs(['--help'], 'tenant-memory bench');
    expect(r.kind).toBe('help');
    if (r.kind !== 'help') return;
    expect(r.text).toContain('Usage: tenant-memory bench [options]');
    for (const flag of [
      '--api-url',
      '--tenant',
      '--search-mode',
      '--graph',
      '--k',
      '--output-format',
      '--dataset-path',
      '--harness-dir',
      '--quiet',
      '--min-recall',
      '--min-mrr',
      '--min-ndcg',
      '--limit-conversations',
    ]) {
      expect(r.text).toContain(flag);
    }
    expect(r.text).toContain('default: "hybrid"');
    expect(r.text).toContain('(default: 10)');
    expect(r.text).toContain('SERVICE_API_KEY');
    expect(USAGE_EXIT_CODE).toBe(2);
  });
});

describe('createProgress', () => {
  /** A stream that claims to be a terminal, with the cursor methods cli-progress calls. */
  function fakeTty(): NodeJS.WriteStream & { output: string } {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & { output: string };
    stream.output = '';
    stream.on('data', (chunk: Buffer) => {
      stream.output += chunk.toString();
    });
    Object.assign(stream, {
      isTTY: true,
      columns: 100,
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
      clearScreenDown: () => true,
    });
    return stream;
  }

  it('is disabled when the stream is not a terminal', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const progress = createProgress({ stream });
    expect(progress.enabled).toBe(false);
    progress.start('ingest', 3);
    progress.increment();
    progress.stop();
  });

  it('is disabled with --quiet even on a terminal', () => {
    expect(createProgress({ quiet: true, stream: fakeTty() }).enabled).toBe(false);
  });

  it('draws on a terminal', () => {
    const stream = fakeTty();
    const progress = createProgress({ stream });
    expect(progress.enabled).toBe(true);
    progress.start('search', 4);
    progress.increment(4);
    progress.stop();
    progress.stop(); // safe twice
    expect(stream.output).toContain('search');
    expect(stream.output).toContain('4/4');
  });
});
