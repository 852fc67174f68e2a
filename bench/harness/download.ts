/**
 * Obtain the public LoCoMo file (`locomo10.json`) when the user gave no `--dataset-path`.
 *
 * The file is downloaded once into `<harness-dir>/datasets/locomo10.json`, checked against a SHA-256,
 * and reused from there on later runs (re-checked each time: 2.8 MB hashes in milliseconds, and a
 * truncated or edited cache must not silently change the benchmark). Any failure — no network, DNS,
 * HTTP error, timeout, checksum mismatch, unwritable directory — is returned as `{ ok: false, reason }`
 * and never thrown, because the spec's answer to "dataset unavailable" is to fall back to synthetic
 * smoke-test data; the caller decides that and reports the reason.
 *
 * The dataset is CC BY-NC 4.0: it is fetched at run time into the (git-ignored) harness directory and
 * must never be committed.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Raw URL of `data/locomo10.json` in snap-research/locomo, pinned to a commit rather than `main` so the
 * content, and therefore the checksum, cannot drift under us. Override with env `LOCOMO_URL` (mirror).
 */
export const LOCOMO_URL =
  'https://raw.githubusercontent.com/snap-research/locomo/3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376/data/locomo10.json';

/**
 * SHA-256 of the published `locomo10.json` (2,805,274 bytes) at the commit above. It could not be
 * computed here (no network when this was written); it is the value that several independent public
 * benchmark projects pin for this exact commit, and they agree. If upstream ever republishes the file
 * or a mirror serves a different revision, the download is rejected with both hashes in the reason and
 * the harness falls back to synthetic data; set env `LOCOMO_SHA256` to the new published hash to accept it.
 */
export const LOCOMO_SHA256 = '79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4';

export const LOCOMO_FILE_NAME = 'locomo10.json';

/**
 * Whole-request timeout. An offline machine usually fails fast (DNS error), but a black-holed network
 * would hang; 20 s is enough for 2.8 MB on a slow link and short enough for a quick fallback.
 */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 20_000;

export interface DownloadOptions {
  /** The harness directory; the file goes to `<harnessDir>/datasets/locomo10.json`. */
  harnessDir: string;
  /** Injected for tests; defaults to the global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Defaults to env `LOCOMO_URL`, then `LOCOMO_URL`. */
  url?: string;
  /** Defaults to env `LOCOMO_SHA256`, then `LOCOMO_SHA256`. Case-insensitive hex. */
  expectedSha256?: string;
  timeoutMs?: number;
  /** Environment to read overrides from; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export type DownloadResult = { ok: true; path: string; sha256: string; fromCache: boolean } | { ok: false; reason: string };

/** Where the cached dataset lives for a given harness directory. */
export function cachedDatasetPath(harnessDir: string): string {
  return join(harnessDir, 'datasets', LOCOMO_FILE_NAME);
}

function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Turn a fetch failure into a short reason: Node hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
    const cause = (err as { cause?: unknown }).cause;
    const code = cause && typeof cause === 'object' ? (cause as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/**
 * Return the path of a verified local copy of `locomo10.json`, downloading it if needed, or the reason
 * it could not be had. Never throws.
 */
export async function obtainLocomo(options: DownloadOptions): Promise<DownloadResult> {
  const env = options.env ?? process.env;
  const url = options.url ?? (env.LOCOMO_URL || LOCOMO_URL);
  const expected = (options.expectedSha256 ?? (env.LOCOMO_SHA256 || LOCOMO_SHA256)).trim().toLowerCase();
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  const path = cachedDatasetPath(options.harnessDir);

  if (!/^[0-9a-f]{64}$/.test(expected)) {
    return { ok: false, reason: `expected checksum ${JSON.stringify(expected)} is not a SHA-256 (64 hex digits); check LOCOMO_SHA256` };
  }

  // 1. A cached copy that still matches is used as is; a mismatching one is replaced by a fresh download.
  try {
    const cached = await readFile(path);
    if (sha256Hex(cached) === expected) return { ok: true, path, sha256: expected, fromCache: true };
    // Mismatch: a truncated or edited cache. Fall through; a verified download overwrites it.
  } catch {
    // No cached copy (or unreadable): download below.
  }

  // 2. Download with a whole-request timeout (the signal also aborts reading the body).
  let body: Uint8Array;
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (!response.ok) return { ok: false, reason: `download of ${url} failed: HTTP ${response.status}` };
    body = new Uint8Array(await response.arrayBuffer());
  } catch (err) {
    return { ok: false, reason: `download of ${url} failed: ${describeFetchError(err, timeoutMs)}` };
  }

  // 3. Verify before anything touches the cache, so a bad download never replaces a file.
  const actual = sha256Hex(body);
  if (actual !== expected) {
    return {
      ok: false,
      reason:
        `checksum mismatch for ${url}: got sha256 ${actual}, expected ${expected}` +
        ' (set LOCOMO_SHA256 if the published file has legitimately changed)',
    };
  }

  // 4. Write atomically (temp file + rename) so an interrupted run cannot leave a half-written cache.
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    await mkdir(join(options.harnessDir, 'datasets'), { recursive: true });
    await writeFile(tmp, body);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    return { ok: false, reason: `could not write ${path}: ${(err as Error).message}` };
  }
  return { ok: true, path, sha256: actual, fromCache: false };
}
