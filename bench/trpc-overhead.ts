/**
 * What `patches/@trpc+server+11.25.2.patch` still buys: the CPU of tRPC's procedure machinery per call,
 * with and without the patch, in the same checkout.
 *
 *   npm run bench:trpc-overhead -- [--calls 20000] [--rounds 5] [--control]
 *
 * Each round runs two child processes one after the other, the patched package and the unpatched one
 * (a loader hook, `support/unpatched-trpc-hook.mjs`, serves the patched file as it was before the
 * patch), alternating which goes first. Each child builds the embedded profile in a temporary directory,
 * creates an API key, warms up, then makes `--calls` sequential in-process calls through
 * `createCaller` with a fresh request context each (the real middlewares, input and output parsers,
 * error formatter; no HTTP) of:
 * - `system.info`: a public procedure (one middleware);
 * - `apiKeys.checkScope`: an API-key procedure with input (authentication from the per-process key cache);
 * - `apiKeys.checkScope` without a key: the 401 path, through the error formatter.
 * Prints the mean µs per call of every round and the median of the rounds. `--control` adds a third
 * child per round, the patched file served through the same hook, to show the hook itself costs nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './support/args.js';
import { formatTable, noteIfLoaded } from './support/report.js';

const args = benchArgs(
  'usage: npm run bench:trpc-overhead -- [--calls 20000] [--rounds 5] [--control] [--help]\n\nMean µs per in-process tRPC call with and without patches/@trpc+server+11.25.2.patch, interleaved rounds.',
  {
    calls: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    child: { type: 'string' },
    control: { type: 'boolean', default: false },
  },
);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const PATCH_FILE = path.join(ROOT, 'patches/@trpc+server+11.25.2.patch');
/** The ESM build's file that holds `_objectSpread2`, the helper the patch changes. */
const PATCHED_FILE = 'node_modules/@trpc/server/dist/getErrorShape-B5jPKHJ3.mjs';
const CASES = ['system.info (public)', 'apiKeys.checkScope (API key)', 'no key (401)'] as const;
/** `hooked`: the patched file served through the same hook, a control showing the hook itself costs nothing. */
type Variant = 'patched' | 'unpatched' | 'hooked';
type Timings = Record<(typeof CASES)[number], number>;

/** The patched file's text with the patch's added lines taken out again. */
function unpatchedSource(): string {
  const patch = readFileSync(PATCH_FILE, 'utf8');
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${PATCHED_FILE} `));
  if (!section) throw new Error(`${PATCH_FILE} has no hunk for ${PATCHED_FILE}`);
  const added = section
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
    .map((l) => l.slice(1))
    .join('\n');
  const patched = readFileSync(path.join(ROOT, PATCHED_FILE), 'utf8');
  const at = patched.indexOf(`${added}\n`);
  if (at === -1 || patched.indexOf(`${added}\n`, at + 1) !== -1)
    throw new Error(`the patch's lines are not in ${PATCHED_FILE} exactly once`);
  return patched.slice(0, at) + patched.slice(at + added.length + 1);
}

/** Registers the hook; `served` settles once it has served the unpatched file (on the first import of tRPC). */
async function serveThroughHook(source: string): Promise<{ served: Promise<void> }> {
  const { register } = await import('node:module');
  const { MessageChannel } = await import('node:worker_threads');
  const { port1, port2 } = new MessageChannel();
  const served = new Promise<void>((resolve) => port1.once('message', () => resolve()));
  port1.unref();
  register('./support/unpatched-trpc-hook.mjs', import.meta.url, {
    data: { target: PATCHED_FILE, source, port: port2 },
    transferList: [port2],
  });
  return { served };
}

async function timeCalls(calls: number, call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await call();
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
}

async function runChild(variant: Variant, calls: number): Promise<void> {
  const { served } =
    variant === 'patched'
      ? { served: Promise.resolve() }
      : await serveThroughHook(variant === 'unpatched' ? unpatchedSource() : readFileSync(path.join(ROOT, PATCHED_FILE), 'utf8'));
  const { loadConfig } = await import('../server/config.js');
  const { createContainer } = await import('../server/container.js');
  const { createLogger } = await import('../server/logger.js');
  const { appRouter } = await import('../routers/_app.js');
  const { createCallerFactory } = await import('../server/trpc.js');
  // The hook's port does not keep the process alive: fail loudly rather than exit quietly if it never served.
  const unserved = setTimeout(() => {
    throw new Error(`the loader hook never served ${PATCHED_FILE}`);
  }, 10_000);
  await served;
  clearTimeout(unserved);
  const { createRequire } = await import('node:module');
  const cjsLoaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('@trpc/server/dist/'));
  if (cjsLoaded) throw new Error("@trpc/server's CommonJS build was loaded too: the measurement would mix both builds");

  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-trpc-'));
  const devNull = new Writable({ write: (_c, _e, cb) => cb() });
  const services = await createContainer(
    loadConfig({ DATA_DIR: dataDir, EMBEDDINGS_PROVIDER: 'hash', NODE_ENV: 'production' }),
    createLogger('error', devNull),
  );
  try {
    const { tenant } = await services.auth.provisionUser({ email: 'bench@example.test', name: null, passwordHash: 'unused' });
    const { secret } = await services.apiKeys.create(
      { tenantId: tenant.id, userId: null, role: null },
      { name: 'bench', scopes: ['memories:read'] },
    );
    const caller = (headers: Record<string, string>) =>
      createCallerFactory(appRouter)({
        requestId: 'bench',
        ip: '127.0.0.1',
        userAgent: null,
        header: (name) => headers[name],
        query: () => undefined,
        origin: () => null,
        services,
        response: { headers: {}, cookies: [] },
      });
    const withKey = { 'x-api-key': secret };
    const run: Record<(typeof CASES)[number], () => Promise<unknown>> = {
      'system.info (public)': () => caller({}).system.info(),
      'apiKeys.checkScope (API key)': () => caller(withKey).apiKeys.checkScope({ scope: 'memories:read' }),
      'no key (401)': () =>
        caller({})
          .apiKeys.checkScope({ scope: 'memories:read' })
          .catch(() => undefined),
    };
    const timings = {} as Timings;
    for (const name of CASES) {
      await timeCalls(Math.max(2000, calls / 5), run[name]);
      timings[name] = await timeCalls(calls, run[name]);
    }
    process.stdout.write(`${JSON.stringify({ variant, timings })}\n`);
  } finally {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function spawnChild(variant: Variant, calls: number): Promise<Timings> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', variant, '--calls', String(calls)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the ${variant} child exited with ${code}`));
      resolve((JSON.parse(out.trim().split('\n').pop()!) as { timings: Timings }).timings);
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const calls = Number(args.calls);
  if (args.child) return runChild(args.child as Variant, calls);
  unpatchedSource(); // fails early if the patch no longer matches the installed package
  const rounds = Number(args.rounds);
  const variants: Variant[] = args.control ? ['patched', 'unpatched', 'hooked'] : ['patched', 'unpatched'];
  const results: Record<Variant, Timings[]> = { patched: [], unpatched: [], hooked: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) results[variant].push(await spawnChild(variant, calls));
    console.error(`round ${r + 1}/${rounds} done`);
  }
  const fmt = (us: number) => us.toFixed(1);
  const body: string[][] = [];
  for (const name of CASES) {
    for (let r = 0; r < rounds; r++) body.push([`${name}, round ${r + 1}`, ...variants.map((v) => fmt(results[v][r]![name])), '']);
    const medians = variants.map((v) => median(results[v].map((t) => t[name])));
    const [p, u] = medians as [number, number];
    body.push([`${name}, median`, ...medians.map(fmt), `${fmt(u - p)} (${((1 - p / u) * 100).toFixed(1)}%)`]);
  }
  console.log(`${calls} sequential calls per case and round, node ${process.version}`);
  console.log(formatTable(['µs per call (mean)', ...variants, 'patch saves'], body));
  noteIfLoaded('; rounds are interleaved, so both variants share it');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
