/**
 * The one HTTP client of an OpenAI-compatible `/v1/chat/completions` endpoint (LLM_URL): temperature 0,
 * a JSON answer (a JSON Schema when the caller gives one), parsed out of the first choice. Used by the
 * contradiction detector and the knowledge LLM engine; both validate the parsed object themselves.
 */
import { z } from 'zod';
import { openAiCompatibleEndpoint } from '../../server/openai-compatible-url.js';
import type { StructuredCompletion, StructuredCompletionRequest } from '../../server/ports/structured-completion.js';

export interface ChatJsonClientOptions {
  /** Base URL of an OpenAI-compatible API ("http://host:port" or ".../v1"); a URL ending in /chat/completions is used as is. */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
  /** Injected fetch (defaults to the global one). */
  fetch?: typeof fetch;
}

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

/** Parse a JSON object out of a model answer (tolerates a ```json fence or surrounding prose). */
export function parseJsonObject(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  const body = (fenced?.[1] ?? content).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('no JSON object in answer');
  return JSON.parse(body.slice(start, end + 1));
}

export class ChatJsonClient implements StructuredCompletion {
  private readonly endpoint: string;
  private readonly model: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ChatJsonClientOptions) {
    this.endpoint = openAiCompatibleEndpoint(options.url, 'chat/completions');
    this.model = options.model;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async complete({ system, user, answerSchema }: StructuredCompletionRequest): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const responseFormat = answerSchema
      ? { type: 'json_schema', json_schema: { name: answerSchema.name, strict: true, schema: answerSchema.schema } }
      : { type: 'json_object' };
    const response = await this.fetchImpl(this.endpoint, {
      method: 'POST',
      headers,
      signal: AbortSignal.timeout(this.timeoutMs),
      body: JSON.stringify({
        model: this.model,
        temperature: 0,
        response_format: responseFormat,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      }),
    });
    if (!response.ok) throw new Error(`LLM answered HTTP ${response.status}`);
    const completion = ChatCompletion.parse(await response.json());
    const content = completion.choices[0]?.message.content;
    if (!content) throw new Error('LLM gave an empty answer');
    return parseJsonObject(content);
  }
}
