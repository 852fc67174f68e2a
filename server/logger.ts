import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs. Secrets must never reach a log line: the redaction list covers every header
 * and body field that can carry one, and the request logger does not log bodies at all.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      // The pid tells apart the processes of `serve --processes N` (and a separate worker) in one log stream.
      base: { service: 'tenant-memory', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'req.headers["x-csrf-token"]',
          'req.headers["x-step-up-token"]',
          'res.headers["set-cookie"]',
          '*.password',
          '*.secret',
          '*.access_token',
          '*.refresh_token',
          '*.step_up_token',
          '*.accessToken',
          '*.refreshToken',
          '*.stepUpToken',
        ],
        censor: '[redacted]',
      },
    },
    destination as Parameters<typeof pino>[1],
  );
}

export type { Logger };
