import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in of an OpenAI-compatible API (node:http on port 0): it records every request
 * (the body parsed as JSON when it is) and answers with the responder the test sets, so tests can
 * assert on exactly what the service sent to a model.
 */
export interface RecordedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** The raw body as received. */
  text: string;
}

export type Responder = (req: IncomingMessage, res: ServerResponse, body: unknown) => void;

export interface OpenAiStandIn {
  /** `http://127.0.0.1:<port>`, a base URL as LLM_URL takes it. */
  url: string;
  requests: RecordedRequest[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** A 200 chat completion whose first choice's message is `content`. */
export const chatAnswer =
  (content: string): Responder =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }));
  };

export async function startOpenAiStandIn(initial: Responder = chatAnswer('{}')): Promise<OpenAiStandIn> {
  let responder = initial;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the raw text is what the test sees
      }
      requests.push({ method: req.method, url: req.url, headers: req.headers, body, text });
      responder(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    respond(next) {
      responder = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
