import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

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

/** Query parameters whose values are credentials or one-time codes (OAuth, OIDC, SAML redirect binding). */
const SECRET_QUERY_PARAMS = /^(code|state|token|access_token|id_token|refresh_token|key|api_key|apikey|secret|client_secret|password|samlresponse|samlrequest|relaystate|signature|sig)$/i;

/** A request URL for the log: the values of credential-like query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {}
      return eq >= 0 && SECRET_QUERY_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { remotePort?: number };
}

/**
 * The process logger. `format`: `json` (one object a line, for collectors), `pretty` (readable lines), or `auto`
 * (readable on a terminal, JSON when stdout is a pipe or file); only without an explicit `destination`.
 */
export function createLogger(opts: { level: string; destination?: pino.DestinationStream; format?: 'auto' | 'json' | 'pretty' }): Logger {
  const readable = !opts.destination && (opts.format === 'pretty' || (opts.format === 'auto' && process.stdout.isTTY === true));
  const destination = readable ? pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' }) : opts.destination;
  return pino(
    {
      level: opts.level,
      base: { service: 'atrium' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Fastify's request line, without one-time codes and tokens a callback URL carries in its query.
      serializers: {
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export type { Logger };
