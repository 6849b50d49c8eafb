import pino, { type Logger } from 'pino';

/** Paths pino blanks out wherever they appear: credentials never reach a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'cookie',
  'key',
  'apiKey',
  'api_key',
  'token',
  'access_token',
  'refresh_token',
  'client_secret',
  'secret',
  'password',
  'credentials',
  '*.key',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.secret',
  '*.password',
  '*.credentials',
];

export function createLogger(opts: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: 'atrium' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination,
  );
}

export type { Logger };
