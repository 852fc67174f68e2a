/**
 * Progress bar for long benchmark phases (ingesting turns, asking questions), on stderr.
 *
 * stderr, because stdout carries the result (JSON may be piped into another tool). Disabled — every
 * method a no-op — when stderr is not a terminal (CI logs, redirects: a redrawn bar there is noise)
 * or with `--quiet`. Callers always use the same API and never branch on whether it is shown.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** Begin a phase of `total` steps, labelled e.g. "ingest" or "search". Ends any previous phase. */
  start(label: string, total: number): void;
  /** Advance the current phase by `step` (default 1). */
  increment(step?: number): void;
  /** Set the position and the total of the current phase (for phases whose total grows as they go). */
  update(done: number, total: number): void;
  /** End the current phase and leave the cursor on a fresh line. Safe to call twice. */
  stop(): void;
  /** Whether anything is drawn (for callers that want to log differently). */
  readonly enabled: boolean;
}

export interface ProgressOptions {
  quiet?: boolean;
  /** Defaults to `process.stderr`; injectable for tests. */
  stream?: NodeJS.WriteStream;
}

const NOOP: Progress = { start() {}, increment() {}, update() {}, stop() {}, enabled: false };

export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.quiet || !stream.isTTY) return NOOP;

  let bar: cliProgress.SingleBar | undefined;
  const stop = (): void => {
    bar?.stop();
    bar = undefined;
  };
  return {
    enabled: true,
    start(label, total) {
      stop();
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label.padEnd(8)} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} elapsed, ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    increment(step = 1) {
      bar?.increment(step);
    },
    update(done, total) {
      bar?.setTotal(total);
      bar?.update(done);
    },
    stop,
  };
}
