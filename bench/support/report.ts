/** Output helpers shared by the performance benchmarks: aligned tables, the load note, JSON results. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';

/**
 * A plain-text table: the first column left-aligned, the others right-aligned (numbers), a dashed
 * rule under the header. Returned without a trailing newline.
 */
export function formatTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/**
 * Prints a note when the 1-minute load average exceeds the number of CPUs: on a shared machine the
 * wall-clock figures then include time spent waiting for a core. Returns that load average.
 */
export function noteIfLoaded(suffix = ''): number {
  const load = loadavg()[0]!;
  if (load > cpus().length) console.log(`note: load average ${load.toFixed(1)} on ${cpus().length} CPUs while measuring${suffix}`);
  return load;
}

/** Writes a bench result as indented JSON, creating the directory (bench/results/ is gitignored). */
export function writeJsonResult(file: string, result: unknown, options: { trailingNewline?: boolean } = {}): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}${options.trailingNewline ? '\n' : ''}`);
}
