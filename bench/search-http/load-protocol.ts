/** What the bench asks of its load-generator thread (`load-worker.ts`) and what it answers. */

/** One pass: `warmup` paths (not timed), then `paths` timed, over `concurrency` keep-alive loops. */
export interface PassRequest {
  port: number;
  key: string;
  paths: string[];
  warmup: string[];
  concurrency: number;
}

export interface PassResult {
  /** Client latency of each timed request, ms, in the order of `paths`. */
  lat: number[];
  /** HTTP status of each timed request (0: socket error). */
  status: number[];
  /** The result list's memory ids of each timed request, or the start of its error body. */
  ids: (string[] | string)[];
  wallMs: number;
}
