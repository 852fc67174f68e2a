import { compileTrust } from './http/client-address.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_PLAN_LIMITS, planLimitsEnv } from './schemas/plan-limits.js';
import { createPrivateFile, ensurePrivateDir } from './private-files.js';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** OIDC providers as JSON: `[{"id":"acme","issuer":"https://…","client_id":"…","client_secret":"…"}]`. */
const oidcProviders = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array' });
      return z.NEVER;
    }
  })
  .pipe(
    z.array(
      z.object({
        id: z.string().regex(/^[a-z0-9_-]+$/i),
        issuer: z.url(),
        client_id: z.string().min(1),
        client_secret: z.string().optional(),
        scopes: z.string().default('openid email profile'),
      }),
    ),
  );

/**
 * Every environment variable the service reads, validated once at start-up (docs/decisions.md#configuration);
 * CLI flags of `tenant-memory serve` override the same keys.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  STORAGE: z.enum(['embedded', 'mongo']).default('embedded'),
  MONGODB_URL: z.string().optional(),
  MONGODB_DB: z.string().default('tenant_memory'),
  /** http(s) only: the Qdrant client speaks REST; a URL without a port means the scheme's (443, 80). */
  QDRANT_URL: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
  QDRANT_API_KEY: z.string().optional(),
  QDRANT_COLLECTION: z.string().default('memories'),
  /**
   * Failed attempts (while Qdrant serves other entries) after which an index outbox entry is set aside
   * instead of holding up its tenant; `tenant-memory outbox retry` puts set-aside entries back.
   */
  INDEX_OUTBOX_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
  EMBEDDINGS_PROVIDER: z.enum(['local', 'use-lite', 'openai', 'hash']).default('local'),
  EMBEDDINGS_URL: z.url().optional(),
  EMBEDDINGS_MODEL: z.string().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  /**
   * Worker threads running the full offline encoder (EMBEDDINGS_PROVIDER=use-lite), so embedding never
   * blocks the HTTP event loop and uses another core; 0 embeds on the main thread. The default static
   * model costs microseconds per text and always runs in line.
   */
  EMBEDDING_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * Worker threads analysing queued writes' text for consolidation (screening, sensitivity, keys,
   * quality, entities, facts) while the consolidating thread works the store; 0 analyses in line.
   */
  CONSOLIDATION_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  /** Worker threads reading memory texts for facts during knowledge enrichment (the kg engine); 0 reads in line. */
  KNOWLEDGE_FACT_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  LLM_URL: z.url().optional(),
  LLM_MODEL: z.string().optional(),
  LLM_API_KEY: z.string().optional(),
  /** Knowledge enrichment asks the LLM (LLM_URL) for open fields; false keeps LLM_URL for contradiction detection only. */
  KNOWLEDGE_LLM_ENRICHMENT: bool.default(true),
  /** Per-request limit of the knowledge LLM engine's call; a run that hits it logs `error` and goes on. */
  KNOWLEDGE_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .default(30 * 86_400),
  STEP_UP_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** Lifetime of a web portal sign-in (its cookie); it does not slide: the browser signs in again after it. */
  PORTAL_SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(30 * 86_400)
    .default(12 * 3600),
  BREAK_GLASS_MAX_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(240),
  SIGNUP_ENABLED: bool.default(true),
  /** Sign-up attempts allowed per client address (IPv6: per /64) per hour (429 beyond it); 0 turns the limit off. */
  SIGNUP_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
  /** SSO sign-in starts (each stores a pending login) allowed per client address per 10 minutes; 0: no limit. */
  SSO_START_RATE_LIMIT: z.coerce.number().int().min(0).default(60),
  /** Invitations (POST /auth/members) one user may send per hour, whatever their outcome; 0: no limit. */
  INVITATION_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
  /** Invitations one tenant may send per hour (all its users together); 0: no limit. */
  INVITATION_TENANT_RATE_LIMIT: z.coerce.number().int().min(0).default(100),
  /** How long an invitation can be accepted (default 7 days). */
  INVITATION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(90 * 86_400)
    .default(7 * 86_400),
  OIDC_PROVIDERS: oidcProviders.default([]),
  /**
   * Lets OIDC issuers on plain http that are not on loopback be used (development against a provider
   * on another host without TLS). http issuers on loopback (127.0.0.0/8, ::1, localhost) are always
   * allowed: that traffic never leaves the machine. Everything else must be https.
   */
  OIDC_ALLOW_INSECURE_ISSUERS: bool.default(false),
  /**
   * The web enrichment engine's fetcher: only public addresses unless `WEB_ENRICHMENT_ALLOW_PRIVATE`
   * (loopback tests, fully trusted networks) or a range in `WEB_ENRICHMENT_ALLOWED_RANGES` (an intranet
   * the operator trusts). Limits are for one fetch, redirects included.
   */
  WEB_ENRICHMENT_ALLOW_PRIVATE: bool.default(false),
  WEB_ENRICHMENT_ALLOWED_RANGES: csv
    .refine((ranges) => ranges.every((r) => ipaddr.isValidCIDR(r)), 'must be comma-separated CIDR ranges, e.g. 10.20.0.0/16')
    .default([]),
  WEB_ENRICHMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  WEB_ENRICHMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(1024 * 1024),
  WEB_ENRICHMENT_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(5),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().default('false'),
  CORS_ORIGINS: csv.default([]),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  MEMORY_CONTENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(16)
    .default(64 * 1024),
  /** Per-plan monthly limits as JSON merged over the defaults (see server/schemas/plan-limits.ts). */
  PLAN_LIMITS: planLimitsEnv.default(DEFAULT_PLAN_LIMITS),
  /**
   * How consolidation scores memory quality: `fast` (surface cues) or `nlp` (the compromise parse of
   * services/consolidation/quality.ts, which caps consolidation throughput; figures:
   * docs/performance.md#fast-quality-estimate).
   */
  MEMORY_QUALITY_SCORER: z.enum(['fast', 'nlp']).default('fast'),
  WORKER_MODE: z.enum(['inline', 'external']).default('inline'),
  /**
   * Knowledge objects named by newly consolidated memories are re-enriched this long after the last
   * such mention (a burst gives one run), and at the latest KNOWLEDGE_REFRESH_MAX_WAIT_MS after the first.
   */
  KNOWLEDGE_REFRESH_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  KNOWLEDGE_REFRESH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  /** How many processes `serve` runs (node:cluster, one listening socket); one per core uses every core. */
  HTTP_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  NODE_ENV: z.string().default('development'),
});

export type Config = z.output<typeof envSchema> & { jwtSecret: string };

/**
 * Largest MEMORY_CONTENT_MAX_BYTES with STORAGE=mongo. A MongoDB document holds at most 16 MiB, and a
 * memory's documents (its row, queued write, version, index outbox entry) carry the content beside
 * the title, tags, metadata (bounded by their schemas to well under 1 MiB), the vector and up to 16
 * entities whose names and keys can each repeat a run of the content: a quarter leaves room for that.
 * A larger content would be accepted by the schema and fail in MongoDB, possibly in a consolidation
 * commit that then fails on every retry.
 */
export const MONGO_CONTENT_MAX_BYTES = 4 * 1024 * 1024;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads and validates configuration. A bad value throws a ConfigError naming the variable, so the
 * process stops at start-up rather than failing later. On the embedded profile an unset JWT_SECRET
 * is generated once and kept in DATA_DIR so that tokens survive restarts.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in envSchema.shape && v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  if (cfg.STORAGE === 'mongo' && !cfg.MONGODB_URL) {
    throw new ConfigError('invalid configuration:\n  MONGODB_URL: required when STORAGE=mongo');
  }
  if (cfg.STORAGE === 'mongo' && !cfg.QDRANT_URL) {
    throw new ConfigError('invalid configuration:\n  QDRANT_URL: required when STORAGE=mongo');
  }
  if (cfg.STORAGE === 'mongo' && cfg.MEMORY_CONTENT_MAX_BYTES > MONGO_CONTENT_MAX_BYTES) {
    throw new ConfigError(
      `invalid configuration:\n  MEMORY_CONTENT_MAX_BYTES: at most ${MONGO_CONTENT_MAX_BYTES} (4 MiB) when STORAGE=mongo ` +
        `(got ${cfg.MEMORY_CONTENT_MAX_BYTES}): a MongoDB document holds at most 16 MiB, and a memory's documents carry more than its content`,
    );
  }
  if (cfg.KNOWLEDGE_REFRESH_MAX_WAIT_MS < cfg.KNOWLEDGE_REFRESH_DELAY_MS) {
    throw new ConfigError('invalid configuration:\n  KNOWLEDGE_REFRESH_MAX_WAIT_MS: must be at least KNOWLEDGE_REFRESH_DELAY_MS');
  }
  if (cfg.EMBEDDINGS_PROVIDER === 'openai' && !cfg.EMBEDDINGS_URL) {
    throw new ConfigError('invalid configuration:\n  EMBEDDINGS_URL: required when EMBEDDINGS_PROVIDER=openai');
  }
  for (const p of cfg.OIDC_PROVIDERS) {
    const issuer = new URL(p.issuer);
    if (
      issuer.protocol !== 'https:' &&
      !(issuer.protocol === 'http:' && (isLoopbackHostname(issuer.hostname) || cfg.OIDC_ALLOW_INSECURE_ISSUERS))
    ) {
      throw new ConfigError(
        `invalid configuration:\n  OIDC_PROVIDERS: issuer of '${p.id}' must be https (http only on loopback, or with OIDC_ALLOW_INSECURE_ISSUERS=true)`,
      );
    }
    if (!p.scopes.split(/\s+/).includes('openid')) {
      throw new ConfigError(`invalid configuration:\n  OIDC_PROVIDERS: scopes of '${p.id}' must include openid`);
    }
  }
  const providerIds = cfg.OIDC_PROVIDERS.map((p) => p.id);
  if (new Set(providerIds).size !== providerIds.length) {
    throw new ConfigError('invalid configuration:\n  OIDC_PROVIDERS: provider ids must be unique');
  }
  try {
    compileTrust(cfg.TRUST_PROXY);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  TRUST_PROXY: ${err instanceof Error ? err.message : String(err)}`);
  }
  const jwtSecret = cfg.JWT_SECRET ?? persistedSecret(cfg);
  return { ...cfg, jwtSecret };
}

/** Where the embedded profile keeps a generated JWT_SECRET. */
export const jwtSecretFile = (dataDir: string) => path.join(dataDir, 'jwt-secret');

function persistedSecret(cfg: z.output<typeof envSchema>): string {
  if (cfg.STORAGE !== 'embedded') {
    throw new ConfigError('invalid configuration:\n  JWT_SECRET: required when STORAGE=mongo (instances must share it)');
  }
  ensurePrivateDir(cfg.DATA_DIR);
  const file = jwtSecretFile(cfg.DATA_DIR);
  if (existsSync(file)) return storedSecret(file);
  const secret = randomBytes(48).toString('base64url');
  // Of two processes starting on a fresh directory, the second reads what the first wrote.
  return createPrivateFile(file, secret) ? secret : storedSecret(file);
}

/** A kept secret obeys JWT_SECRET's rule: an empty or cut-short file (a full disk) would sign forgeable tokens. */
function storedSecret(file: string): string {
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new ConfigError(
      `invalid configuration:\n  JWT_SECRET: ${file} holds fewer than 32 characters; delete it to generate a new one, or set JWT_SECRET`,
    );
  }
  return secret;
}

/** True for host names that always mean this machine: localhost, 127.0.0.0/8 and ::1 (URL.hostname form). */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '[::1]' || h === '::1') return true;
  return /^127(\.\d{1,3}){3}$/.test(h);
}
