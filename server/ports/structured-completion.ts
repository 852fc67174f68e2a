/**
 * A language model asked for one JSON object (issue #23 §4, the LLM enrichment engine; the contradiction
 * detector uses the same client). The adapter (`adapters/llm/chat-json-client.ts`) speaks to an
 * OpenAI-compatible chat endpoint; callers validate what comes back, since a model's answer is untrusted.
 */

/** A JSON Schema the answer must follow (`response_format: {type: "json_schema"}`), named as providers require. */
export interface AnswerSchema {
  name: string;
  schema: Record<string, unknown>;
}

export interface StructuredCompletionRequest {
  /** The instructions. */
  system: string;
  /** The data the model works on; callers say in `system` that it is data, not instructions. */
  user: string;
  /** Without one the model is only told to answer with a JSON object. */
  answerSchema?: AnswerSchema;
}

export interface StructuredCompletion {
  /** The parsed JSON object of the answer; throws on a transport error, a timeout, a non-2xx status or no JSON object. */
  complete(request: StructuredCompletionRequest): Promise<unknown>;
}
