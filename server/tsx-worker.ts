import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * `execArgv` for a worker thread that runs one of our TypeScript modules: the sources run through tsx
 * (there is no build step), and a worker thread needs the loader registered too.
 */
export function tsxWorkerExecArgv(): string[] {
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
}
