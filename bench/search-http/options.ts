/** The command line of `bench:search-http`, read once into typed settings. */
import path from 'node:path';
import { benchArgs } from '../support/args.js';
import { pickClient } from '../support/wrk.js';

export const USAGE = `Usage: npm run bench:search-http -- [options]

Search latency over HTTP on the embedded profile (GET /memories/search): p50/p95/p99 and req/s per
mode, the tenant alone and beside other tenants, ANN recall and where a request's time goes.

Options:
  --quick                    the small tenant only (alone, then beside --neighbors tenants of --small)
  --requests N               timed requests per mode (default 600)
  --warmup N                 untimed warm-up queries per mode (default 30)
  --concurrency N            keep-alive clients (default 8)
  --neighbors N              other tenants beside the measured one (default 20)
  --neighbor-size N          memories per neighbour (default --small with --quick, else --large)
  --small N                  memories of the small tenant (default 10000)
  --large N                  memories of the large tenant (default 100000)
  --max-load-minutes N       fall back to --small neighbours above this load estimate (default 30)
  --profile-requests N       sequential requests per stage profile (default 60)
  --recall-queries N         queries for the ANN recall (default 100)
  --clustered-recall         also measure IVF recall on a clustered set below the ANN threshold
  --skip-clustered-recall    skip the clustered IVF recall
  --processes N              repeat every measurement against \`tenant-memory serve --processes N\`
  --client wrk|node          who drives the timed load (default wrk when on PATH)
  --seconds N                with wrk: seconds of load per mode (default 10)
  --warmup-seconds N         with wrk: untimed load before each server's first mode (default 20)
  --log-level LEVEL          server log level (default info; logs are discarded)
  --json FILE                where the result goes (default bench/results/search-http.json)
  --help                     this text
`;

export interface SearchHttpSettings {
  quick: boolean;
  requests: number;
  warmup: number;
  concurrency: number;
  neighbors: number;
  /** Size of each neighbour tenant; unset: the small tenant's size with `--quick`, else the large one's. */
  neighborSize: number | undefined;
  small: number;
  large: number;
  profileRequests: number;
  recallQueries: number;
  skipClusteredRecall: boolean;
  clusteredRecall: boolean;
  maxLoadMinutes: number;
  logLevel: string;
  processes: number;
  /** Who drives the timed load: `wrk` (default when installed) or `node` (the worker-thread client). */
  client: 'wrk' | 'node';
  /** With `--client wrk`: seconds of load per mode. */
  wrkSeconds: number;
  /** With `--client wrk`: seconds of untimed load (every mode) on each server before its first mode. */
  wrkWarmupSeconds: number;
  json: string;
}

export function readSettings(): SearchHttpSettings {
  const opt = benchArgs(USAGE, {
    quick: { type: 'boolean', default: false },
    requests: { type: 'string', default: '600' },
    warmup: { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '8' },
    neighbors: { type: 'string', default: '20' },
    'neighbor-size': { type: 'string' },
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '100000' },
    'profile-requests': { type: 'string', default: '60' },
    'recall-queries': { type: 'string', default: '100' },
    'skip-clustered-recall': { type: 'boolean', default: false },
    'clustered-recall': { type: 'boolean', default: false },
    'max-load-minutes': { type: 'string', default: '30' },
    'log-level': { type: 'string', default: 'info' },
    processes: { type: 'string', default: '1' },
    client: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    'warmup-seconds': { type: 'string', default: '20' },
    json: { type: 'string', default: path.join('bench', 'results', 'search-http.json') },
  });
  return {
    quick: opt.quick,
    requests: Number(opt.requests),
    warmup: Number(opt.warmup),
    concurrency: Number(opt.concurrency),
    neighbors: Number(opt.neighbors),
    neighborSize: opt['neighbor-size'] !== undefined ? Number(opt['neighbor-size']) : undefined,
    small: Number(opt.small),
    large: Number(opt.large),
    profileRequests: Number(opt['profile-requests']),
    recallQueries: Number(opt['recall-queries']),
    skipClusteredRecall: opt['skip-clustered-recall'],
    clusteredRecall: opt['clustered-recall'],
    maxLoadMinutes: Number(opt['max-load-minutes']),
    logLevel: opt['log-level'],
    processes: Number(opt.processes),
    client: pickClient(opt.client, 'node'),
    wrkSeconds: Number(opt.seconds),
    wrkWarmupSeconds: Number(opt['warmup-seconds']),
    json: opt.json,
  };
}
