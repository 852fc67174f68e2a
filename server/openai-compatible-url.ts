/**
 * Where an OpenAI-compatible API serves `resource` (`embeddings`, `chat/completions`), from the URL an
 * operator configured. Providers document their base URL in different forms: `http://host:port`
 * (TEI, vLLM), `…/v1` (OpenAI, Ollama's OpenAI API), or the full endpoint, so all three are accepted:
 * a URL already ending in `/resource` is used as is, one ending in `/v1` gets `/resource`, any other
 * gets `/v1/resource`.
 */
export function openAiCompatibleEndpoint(url: string, resource: string): string {
  const base = url.replace(/\/+$/, '');
  if (base.endsWith(`/${resource}`)) return base;
  return /\/v1$/.test(base) ? `${base}/${resource}` : `${base}/v1/${resource}`;
}
