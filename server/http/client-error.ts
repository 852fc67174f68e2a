import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, errorCatalog, type ErrorBody } from '../errors.js';
import type { Logger } from '../logger.js';

/** What Node's HTTP parser refused, as one of our errors (its default answers have no body). */
function errorFor(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', 'request headers are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('PAYLOAD_TOO_LARGE', 'chunk extensions are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'the request was not received in time');
    default:
      return new AppError('VALIDATION_FAILED', 'malformed HTTP request');
  }
}

/** True when a response on this connection has begun: another status line would corrupt it. */
function responseStarted(socket: Duplex): boolean {
  // The same check as Node's own default handler (`_httpMessage` is the in-flight ServerResponse).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return inFlight?.headersSent === true;
}

/**
 * The http server's `clientError` handler: a request the parser refused (headers over the size limit,
 * a malformed request line or header, a timeout) gets the JSON error body with a request id, like every
 * other error, and the connection closes. Nothing is written to a socket that cannot take it. The log
 * line names the parser's code only: the raw bytes it refused may hold credentials.
 */
export function clientErrorHandler(logger: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const error = errorFor(err.code);
    const status = errorCatalog[error.code].status;
    const body: ErrorBody = { code: error.code, message: error.message, request_id: randomUUID() };
    const text = JSON.stringify(body);
    logger.warn({ request_id: body.request_id, parser_code: err.code, status }, 'request refused by the HTTP parser');
    // Closed once written: the parser cannot read this connection any further.
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-ID: ${body.request_id}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        text,
      () => socket.destroy(),
    );
  };
}
