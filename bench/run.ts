import { createTenantMemoryClient } from '../client/index.js';
import {
  DatasetError,
  USAGE_EXIT_CODE,
  createProgress,
  limitConversations,
  parseBenchArgs,
  renderJson,
  renderText,
  resolveDataset,
  scoreRun,
  type BenchOptions,
  type Conversation,
  type QueryOutcome,
} from './harness/index.js';
import { turnContent } from './harness/turn-content.js';

type Client = ReturnType<typeof createTenantMemoryClient>;

/** Thrown for problems the user fixes by changing arguments or the environment: exit status 2. */
class UsageProblem extends Error {}

const INGEST_CONCURRENCY = 32;
const QUERY_CONCURRENCY = 4;
const CONSOLIDATION_TIMEOUT_MS = 30 * 60_000;

/** Each conversation gets its own namespace: turn ids (`D1:3`) repeat across conversations. */
export function namespaceFor(sampleId: string): string {
  const safe = sampleId.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 50);
  return `locomo-${safe || 'conv'}`;
}

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * The key the run uses: `SERVICE_API_KEY`, or a session sign-in (`SERVICE_EMAIL`/`SERVICE_PASSWORD`)
 * that mints a temporary key for `--tenant` and revokes it when the run ends.
 */
async function credentials(options: BenchOptions, env: NodeJS.ProcessEnv): Promise<{ apiKey: string; cleanup: () => Promise<void> }> {
  if (env.SERVICE_API_KEY) return { apiKey: env.SERVICE_API_KEY, cleanup: async () => {} };
  if (!env.SERVICE_EMAIL || !env.SERVICE_PASSWORD) {
    throw new UsageProblem('set SERVICE_API_KEY (an API key of the tenant), or SERVICE_EMAIL and SERVICE_PASSWORD to sign in');
  }
  const anonymous = createTenantMemoryClient({ url: options.apiUrl, batch: false });
  const session = await anonymous.auth.login.mutate({ email: env.SERVICE_EMAIL, password: env.SERVICE_PASSWORD });
  const admin = createTenantMemoryClient({
    url: options.apiUrl,
    accessToken: session.access_token,
    headers: { 'x-tenant-id': options.tenant },
    batch: false,
  });
  const key = await admin.apiKeys.create.mutate({ name: 'benchmark run', scopes: ['memories:read', 'memories:write', 'usage:read'] });
  return { apiKey: key.secret, cleanup: async () => void (await admin.apiKeys.revoke.mutate({ id: key.key_id })) };
}

/** Turn ids already stored in a conversation's namespace, so a re-run reuses them instead of duplicating. */
async function storedTurns(client: Client, namespace: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const page = await client.memories.list.query({ namespace, limit: 100, offset });
    for (const m of page.memories) {
      const turn = (m as { metadata?: Record<string, unknown> }).metadata?.turn_id;
      if (typeof turn === 'string') seen.add(turn);
    }
    if (page.memories.length < 100) return seen;
  }
}

async function ingest(client: Client, conversations: Conversation[], quiet: boolean): Promise<{ written: number; reused: number }> {
  const todo: { conv: Conversation; turns: Conversation['turns'] }[] = [];
  let reused = 0;
  let missing = 0;
  for (const conv of conversations) {
    const stored = await storedTurns(client, namespaceFor(conv.sampleId));
    const turns = conv.turns.filter((t) => !stored.has(t.turnId));
    reused += conv.turns.length - turns.length;
    missing += turns.length;
    todo.push({ conv, turns });
  }
  const bar = createProgress({ quiet });
  bar.start('ingest', missing);
  // Turns of one conversation are written in dialogue order (the index relates memories written one
  // after another); conversations proceed side by side.
  await mapLimit(todo, INGEST_CONCURRENCY, async ({ conv, turns }) => {
    const namespace = namespaceFor(conv.sampleId);
    for (const turn of turns) {
      await client.memories.create.mutate(
        {
          content: turnContent(turn),
          namespace,
          type: 'episodic',
          metadata: {
            turn_id: turn.turnId,
            sample_id: conv.sampleId,
            speaker: turn.speaker,
            session: turn.session,
            session_date: turn.sessionDate,
          },
        },
        // Safe to retry after a dropped connection: the service applies a keyed write once.
        { context: { idempotencyKey: `bench:${namespace}:${turn.turnId}` } },
      );
      bar.increment();
    }
  });
  bar.stop();
  return { written: missing, reused };
}

/** Waits on the service's own signal (pending writes reaching zero), not on sleeps of a guessed length. */
async function awaitConsolidation(client: Client, quiet: boolean): Promise<void> {
  const first = (await client.usage.get.query()).pending_writes;
  const bar = createProgress({ quiet });
  bar.start('consolidate', first);
  const deadline = Date.now() + CONSOLIDATION_TIMEOUT_MS;
  let done = 0;
  for (;;) {
    const pending = (await client.usage.get.query()).pending_writes;
    bar.increment(Math.max(0, first - pending - done));
    done = Math.max(done, first - pending);
    if (pending === 0) break;
    if (Date.now() > deadline) throw new Error(`consolidation did not finish: ${pending} writes still pending`);
    await new Promise((r) => setTimeout(r, 200));
  }
  bar.stop();
}

async function query(client: Client, options: BenchOptions, conversations: Conversation[]): Promise<QueryOutcome[]> {
  const mode = options.graph ? 'hybrid+graph' : options.searchMode;
  const jobs = conversations.flatMap((conv) => conv.questions.map((q) => ({ conv, q })));
  const outcomes: QueryOutcome[] = new Array(jobs.length);
  const bar = createProgress({ quiet: options.quiet });
  bar.start('queries', jobs.length);
  let i = 0;
  await mapLimit(
    jobs.map((j) => ({ ...j, index: i++ })),
    QUERY_CONCURRENCY,
    async ({ conv, q, index }) => {
      const started = performance.now();
      try {
        const page = await client.search.memories.query({ q: q.question, k: options.k, mode, namespace: namespaceFor(conv.sampleId) });
        const ranked = page.results.map((r) => String(r.metadata.turn_id ?? ''));
        outcomes[index] = { category: q.category, relevant: q.evidence, ranked, latencyMs: performance.now() - started };
      } catch (err) {
        outcomes[index] = {
          category: q.category,
          relevant: q.evidence,
          ranked: [],
          latencyMs: performance.now() - started,
          error: err instanceof Error ? err.message : String(err),
        };
      }
      bar.increment();
    },
  );
  bar.stop();
  return outcomes;
}

/**
 * `tenant-memory bench …`: ingests the dataset's dialogue turns as memories, waits for consolidation,
 * searches every question of categories 1–4 and prints the scores. Returns the exit status:
 * 0 passed, 1 not passed, 2 usage, dataset or connection problems.
 */
export async function runBench(
  argv: readonly string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv } = process,
): Promise<number> {
  const parsed = parseBenchArgs(argv, 'tenant-memory bench');
  if (parsed.kind === 'help') {
    io.stdout.write(parsed.text);
    return 0;
  }
  if (parsed.kind === 'usage-error') {
    io.stderr.write(`${parsed.message}\n${parsed.usage}`);
    return USAGE_EXIT_CODE;
  }
  const options = parsed.options;
  let cleanup = async () => {};
  try {
    const resolved = await resolveDataset({ datasetPath: options.datasetPath, harnessDir: options.harnessDir, env: io.env });
    if (resolved.fallbackReason && !options.quiet)
      io.stderr.write(`dataset unavailable (${resolved.fallbackReason}); using the synthetic smoke-test dataset\n`);
    const dataset = limitConversations(resolved.dataset, options.limitConversations);

    const creds = await credentials(options, io.env);
    cleanup = creds.cleanup;
    const client = createTenantMemoryClient({ url: options.apiUrl, apiKey: creds.apiKey });
    const current = await client.apiKeys.current.query();
    if (current.tenant_id !== options.tenant) {
      throw new UsageProblem(`the API key belongs to tenant ${current.tenant_id}, not --tenant ${options.tenant}`);
    }

    await ingest(client, dataset.conversations, options.quiet);
    await awaitConsolidation(client, options.quiet);
    const outcomes = await query(client, options, dataset.conversations);
    const result = scoreRun({
      mode: options.graph ? 'hybrid+graph' : options.searchMode,
      graph: options.graph,
      k: options.k,
      dataset: resolved.kind === 'synthetic' ? 'synthetic' : dataset.source,
      ...(resolved.fallbackReason ? { fallbackReason: resolved.fallbackReason } : {}),
      outcomes,
      thresholds: options.thresholds,
    });
    io.stdout.write(options.outputFormat === 'text' ? renderText(result) : `${renderJson(result)}\n`);
    return result.passed ? 0 : 1;
  } catch (err) {
    io.stderr.write(`bench: ${describe(err)}\n`);
    return USAGE_EXIT_CODE;
  } finally {
    await cleanup().catch(() => undefined);
  }
}

function describe(err: unknown): string {
  if (err instanceof UsageProblem || err instanceof DatasetError) return err.message;
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED' || /fetch failed/i.test(String((err as Error).message)))
    return `cannot reach the service (${(err as Error).message})`;
  const app = (err as { data?: { app?: { code: string; message: string } } }).data?.app;
  if (app) return `${app.code}: ${app.message}`;
  return err instanceof Error ? err.message : String(err);
}
