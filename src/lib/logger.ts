// Logger settings shared by the API and the worker: JSON lines by default (for log collectors),
// or LOG_FORMAT=pretty for a human at a terminal (pino-pretty, in a worker thread).
import pino, { type Logger, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  'refresh_token',
  'access_token',
  'apiKey',
  'key',
];

export function loggerOptions(
  config: { logLevel: string; logFormat: 'json' | 'pretty' },
  name?: string,
): LoggerOptions {
  return {
    level: config.logLevel,
    ...(name ? { name } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(config.logFormat === 'pretty'
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true },
          },
        }
      : {}),
  };
}

/**
 * The process's logger. JSON lines go to stdout asynchronously, in writes of about 4 KiB, or after
 * at most 200 ms when traffic is low: a write per request line cost the API about a quarter of its
 * CPU per request under load (docs/benchmarks-history.md, "HTTP hot paths"). pino flushes what is pending
 * when the process exits.
 */
const BUFFER_BYTES = 4096;
const FLUSH_MS = 200;

export function createLogger(config: { logLevel: string; logFormat: 'json' | 'pretty' }, name?: string): Logger {
  const options = loggerOptions(config, name);
  if (config.logFormat === 'pretty') return pino(options);
  const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  // Lines wait at most this long in the buffer when traffic is too low to fill it.
  setInterval(() => destination.flush(), FLUSH_MS).unref();
  return pino(options, destination);
}
