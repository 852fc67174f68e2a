import { spawn } from 'node:child_process';
import path from 'node:path';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'tenant-memory.mjs');

/**
 * Runs `tenant-memory <args>` as a child process (hashing embedder, info logs) and collects its JSON
 * log lines as they arrive, its stderr, and its exit code.
 */
export function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, EMBEDDINGS_PROVIDER: 'hash', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    buffer += c;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const p of parts) if (p.startsWith('{')) lines.push(JSON.parse(p));
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited, stderr: () => stderr };
}
