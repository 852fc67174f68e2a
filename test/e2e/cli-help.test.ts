import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildCli } from '../../cli/tenant-memory.js';

// Every command people type answers `--help` with its usage and exit 0. The lists come from the CLI's
// own command tree and from package.json, so a new command or bench script cannot escape them.

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin', 'tenant-memory.mjs');

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

const cliCommands = [[], ...commandPaths(buildCli())];
const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const benchScripts = Object.keys(scripts).filter((name) => name.startsWith('bench:'));

// Each case is a child process that mostly waits on module loading: a few at once keep the file short.
describe.concurrent('--help', () => {
  it('finds the commands and scripts it checks', () => {
    expect(cliCommands.map((c) => c.join(' '))).toEqual(
      expect.arrayContaining(['', 'serve', 'worker', 'reindex', 'tenant suspend', 'bench']),
    );
    expect(benchScripts).toEqual(
      expect.arrayContaining(['bench:search-http', 'bench:memory-writes', 'bench:consolidation', 'bench:locomo']),
    );
  });

  it.each(cliCommands.map((c) => [c.join(' ') || '(no command)', c] as const))(
    'tenant-memory %s --help prints its usage and exits 0',
    async (_label, args) => {
      const r = await run(process.execPath, [bin, ...args, '--help']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: tenant-memory${args.map((a) => ` ${a}`).join('')} `, 'm'));
    },
    60_000,
  );

  it.each(benchScripts)(
    'npm run %s -- --help prints its usage and exits 0',
    async (name) => {
      const r = await run('npm', ['run', '--silent', name, '--', '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: /im);
      expect(r.stdout).toMatch(/--help\b|Options:/);
    },
    60_000,
  );
});
