import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChatJsonClient } from '../../adapters/llm/chat-json-client.js';
import { chatAnswer, startOpenAiStandIn, type OpenAiStandIn } from '../support/openai-stand-in.js';

/** The chat client's structured-output request; its errors and fallbacks are covered through the contradiction detector's tests. */
let standIn: OpenAiStandIn;
beforeAll(async () => {
  standIn = await startOpenAiStandIn();
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(() => {
  standIn.requests.length = 0;
});

describe('ChatJsonClient', () => {
  it('asks for the given JSON Schema as strict structured output and returns the parsed object', async () => {
    standIn.respond(chatAnswer('{"fields": {"flag": null}}'));
    const schema = { type: 'object', properties: { fields: { type: 'object' } }, required: ['fields'], additionalProperties: false };
    const client = new ChatJsonClient({ url: `${standIn.url}/v1`, model: 'small-model', apiKey: 'sk-made-up' });
    await expect(
      client.complete({ system: 'be brief', user: '{"q":1}', answerSchema: { name: 'knowledge_fields', schema } }),
    ).resolves.toEqual({
      fields: { flag: null },
    });
    const [request] = standIn.requests;
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-made-up');
    expect(request?.body).toEqual({
      model: 'small-model',
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'knowledge_fields', strict: true, schema } },
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: '{"q":1}' },
      ],
    });
  });

  it.each([
    ['an HTTP error', ((_req, res) => res.writeHead(502).end()) as Parameters<OpenAiStandIn['respond']>[0], /HTTP 502/],
    ['an empty answer', chatAnswer(''), /empty answer/],
    ['an answer without JSON', chatAnswer('I cannot tell.'), /no JSON object/],
  ])('throws on %s', async (_label, responder, message) => {
    standIn.respond(responder);
    const client = new ChatJsonClient({ url: standIn.url, model: 'm' });
    await expect(client.complete({ system: 's', user: 'u' })).rejects.toThrow(message);
  });
});
