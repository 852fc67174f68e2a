import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until, type JobEvent } from './job-fixtures.js';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'job-worker.ts');

export interface ChildWorker {
  process: ChildProcess;
  /** Every event the child printed, in order. */
  events: Array<JobEvent & { finished?: boolean }>;
  stderr: string[];
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  waitFor(predicate: (events: JobEvent[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/** Starts `test/support/job-worker.ts` in a new Node process (through tsx) and waits until it runs jobs. */
export async function spawnJobWorker(env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: ChildWorker['events'] = [];
  const stderr: string[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const worker: ChildWorker = {
    process: child,
    events,
    stderr,
    exited,
    waitFor: (predicate, what, timeoutMs = 20_000) =>
      until(
        () => {
          if (child.exitCode !== null)
            throw new Error(`child worker exited (${child.exitCode}) while waiting for ${what}: ${stderr.join('')}`);
          return predicate(events);
        },
        what,
        timeoutMs,
      ),
  };
  await worker.waitFor((e) => e.some((x) => x.event === 'ready'), 'the child worker to start', 60_000);
  return worker;
}
