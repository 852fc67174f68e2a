import { openAiCompatibleEndpoint } from '../../server/openai-compatible-url.js';
import { l2Normalize, type Embedder } from '../../server/ports/embedder.js';

export interface OpenAiCompatibleOptions {
  /** The service's base URL (`http://127.0.0.1:8080`), its `/v1` URL, or the full `/v1/embeddings` endpoint. */
  url: string;
  model: string;
  apiKey?: string;
  /** Expected vector length; discovered from the first response when not set. */
  dimension?: number;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Per-request timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a network error (default 4). */
  maxRetries?: number;
  /** First backoff in milliseconds, doubled on each retry with jitter (default 250). */
  backoffMs?: number;
  fetch?: typeof fetch;
}

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: unknown }[];
}

/**
 * Embeddings from any service that speaks the OpenAI embeddings protocol: `POST …/v1/embeddings`
 * with `{model, input: string[]}` and a bearer key, answering `{data: [{index, embedding}]}`.
 *
 * Requests are batched, each bounded by a timeout; a 429, a 5xx or a network error is retried with
 * exponential backoff (honouring `Retry-After` when given); other errors fail at once. An error names
 * the status only, never the service's answer: some providers echo the input in their errors, and these
 * errors are logged (a search's query, a memory's content would reach the logs). The dimension is
 * configured or discovered from the first response, and every later vector must have that length.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly model: string;
  private dim: number;
  private readonly endpoint: string;
  private readonly options: Required<Omit<OpenAiCompatibleOptions, 'apiKey' | 'dimension' | 'url' | 'model'>> & {
    apiKey: string | undefined;
  };

  constructor(options: OpenAiCompatibleOptions) {
    if (!options.url) throw new Error('the OpenAI-compatible embedder needs a url');
    if (!options.model) throw new Error('the OpenAI-compatible embedder needs a model name');
    this.model = options.model;
    this.dim = options.dimension ?? 0;
    this.endpoint = openAiCompatibleEndpoint(options.url, 'embeddings');
    this.options = {
      apiKey: options.apiKey,
      batchSize: options.batchSize ?? 64,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 4,
      backoffMs: options.backoffMs ?? 250,
      fetch: options.fetch ?? fetch,
    };
  }

  get dimension(): number {
    return this.dim;
  }

  async init(): Promise<void> {
    if (this.dim === 0) await this.embed(['dimension probe']);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.options.batchSize))));
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: this.model, input });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let attempt = 0;
    for (;;) {
      let retryAfterMs: number | null = null;
      let failure: Error;
      let res: Response | null = null;
      try {
        res = await this.options.fetch(this.endpoint, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        failure =
          e.name === 'TimeoutError'
            ? new Error(`embedding request to ${this.endpoint} timed out after ${this.options.timeoutMs} ms`)
            : new Error(`embedding request to ${this.endpoint} failed: ${e.message}`);
      }
      if (res) {
        if (res.ok) return this.parse(await this.json(res), input.length);
        await res.body?.cancel().catch(() => {}); // unread: frees the connection
        failure = new Error(`embedding service answered ${res.status}`);
        if (res.status !== 429 && res.status < 500) throw failure;
        const ra = Number(res.headers.get('retry-after'));
        if (Number.isFinite(ra) && ra > 0) retryAfterMs = Math.min(ra * 1000, 30_000);
      }
      attempt++;
      if (attempt > this.options.maxRetries) {
        throw new Error(`${failure!.message} (gave up after ${attempt} attempts)`);
      }
      const backoff = this.options.backoffMs * 2 ** (attempt - 1);
      const wait = retryAfterMs ?? backoff + Math.random() * backoff * 0.25;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** The answer's JSON; JSON.parse's own error quotes the text it failed on, so it is replaced. */
  private async json(res: Response): Promise<EmbeddingsResponse> {
    try {
      return (await res.json()) as EmbeddingsResponse;
    } catch {
      throw new Error(`embedding service answered ${res.status} with a body that is not JSON`);
    }
  }

  private parse(json: EmbeddingsResponse, expected: number): Float32Array[] {
    const data = json.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new Error(`embedding service returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} inputs`);
    }
    const out = new Array<Float32Array>(expected);
    data.forEach((item, pos) => {
      const index = typeof item.index === 'number' ? item.index : pos;
      const emb = item.embedding;
      if (!Array.isArray(emb) || emb.length === 0 || !emb.every((x) => typeof x === 'number')) {
        throw new Error('embedding service returned a malformed vector (expected an array of numbers)');
      }
      if (this.dim === 0) this.dim = emb.length;
      if (emb.length !== this.dim) {
        throw new Error(`embedding service returned ${emb.length} dimensions, expected ${this.dim} (model ${this.model})`);
      }
      if (index < 0 || index >= expected || out[index]) throw new Error('embedding service returned inconsistent indexes');
      out[index] = l2Normalize(Float32Array.from(emb as number[]));
    });
    return out;
  }
}
