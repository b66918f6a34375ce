// Logger settings shared by the API and the worker: JSON lines by default (for log collectors),
// or LOG_FORMAT=pretty for a human at a terminal (pino-pretty, in a worker thread).
import type { LoggerOptions } from 'pino';

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

export function loggerOptions(config: { logLevel: string; logFormat: 'json' | 'pretty' }, name?: string): LoggerOptions {
  return {
    level: config.logLevel,
    ...(name ? { name } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(config.logFormat === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } } }
      : {}),
  };
}
