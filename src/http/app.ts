import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import { API_REFERENCE_PREFIX, operationIdFor, tagFor } from './operation-ids.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { Errors, unstorableText } from '../platform/errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../platform/json-depth.ts';
import { VERSION } from '../platform/version.ts';
import { authorize } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { sendError } from './errors.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { registerRoutes } from './routes/index.ts';
import { systemRoutes } from './routes/system.ts';
import { errorBody } from './schemas.ts';

export type App = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  import('pino').Logger,
  ZodTypeProvider
>;

const ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 429, 500] as const;

/**
 * Builds the Fastify app without listening: tests drive it with `app.inject()`,
 * src/main calls `listen()`.
 */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function buildApp(deps: AppDeps, opts: { metrics?: Metrics; systemOnly?: boolean } = {}): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    ajv: { customOptions: { coerceTypes: false } },
    // Ids in paths are validated by each route's schema (most allow 200 characters), not cut at Fastify's 100.
    routerOptions: { maxParamLength: 1000 },
    // Fastify's own refusals (a malformed URL, say) answer in the one error shape too.
    frameworkErrors: (err, request, reply) => {
      sendError(err, request, reply);
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // A JSON content type with an empty body (many HTTP clients send one on DELETE) is a request without a
  // body, not malformed JSON; anything else goes to Fastify's own parser (prototype-poisoning checks).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(Errors.jsonTooDeep(MAX_JSON_DEPTH), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  // Only JSON (and the form posts a few routes register) is accepted: a text/plain body is 415, not parsed as a string.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('principal', null);

  const metrics = opts.metrics ?? createMetrics();
  app.decorate('metrics', metrics);

  // Every route states its permission; the OpenAPI document carries it and the standard error responses.
  app.addHook('onRoute', (route) => {
    // The API reference's pages and assets (Swagger UI, registered in routes/system.ts) are public, like the document.
    if (route.url === API_REFERENCE_PREFIX || route.url.startsWith(`${API_REFERENCE_PREFIX}/`)) route.config = { ...route.config, permission: 'public' };
    const permission = route.config?.permission;
    if (route.url.startsWith('/v1') && permission === undefined && !route.schema?.hide) {
      throw new Error(`route ${route.method} ${route.url} declares no permission`);
    }
    route.schema = route.schema ?? {};
    const schema = route.schema as Record<string, unknown>;
    // Stable names and areas for client generators and the reference at /docs/api (operation-ids.ts).
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    schema.operationId ??= operationIdFor(String(method), route.url);
    schema.tags ??= [tagFor(route.url)];
    if (permission && permission !== 'public') {
      schema.security = [{ bearerAuth: [] }, { sessionCookie: [] }];
      schema['x-permission'] = permission;
      const note = `Permission: \`${permission}\`.`;
      // A GET route's HEAD twin shares this schema object: the note goes in once.
      if (!String(schema.description ?? '').includes(note)) schema.description = schema.description ? `${String(schema.description)}\n\n${note}` : note;
    }
    schema.response = schema.response ?? {};
    const response = schema.response as Record<string, unknown>;
    for (const status of ERROR_STATUSES) {
      if (permission === 'public' && (status === 401 || status === 403 || status === 429)) continue;
      response[status] ??= errorBody;
    }
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Atrium API',
        version: VERSION,
        description: 'Enterprise knowledge service: connectors, federated search, MCP, SSO and embedding translation.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An Atrium API key (`atr_…`)' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'atrium_session' },
        },
      },
    },
    transform: createJsonSchemaTransform({ skipList: [] }),
    transformObject: createJsonSchemaTransformObject({}),
  });

  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    await authorize(deps, request);
  });

  // PostgreSQL cannot store U+0000 in text, nor a lone UTF-16 surrogate in jsonb: a path id, query value or body
  // string (or key) holding one is refused with its field named, before any route stores, looks up or acts on it
  // (an action intent would otherwise run at the vendor and then fail to write its audit row). MCP's JSON-RPC route
  // answers in JSON-RPC instead (its tool gate makes the same check), and vendor webhooks keep their raw bytes.
  app.addHook('preValidation', async (request) => {
    const url = request.routeOptions.url ?? '';
    if (url === '/v1/expose/mcp' || url.endsWith('/webhook/deliveries')) return;
    const found =
      unstorableText(request.params, 'params') ??
      unstorableText(request.query, 'querystring') ??
      (typeof request.body === 'string' ? null : unstorableText(request.body, 'body'));
    if (found) throw Errors.validation(`invalid ${found.path}: ${found.message}`, [found]);
  });

  // Baseline security headers on every response (the console's routes add their CSP on top): no MIME
  // sniffing; API answers (keys at creation, document content) are never cached or framed; HSTS once the
  // service is reached over HTTPS.
  const hsts = deps.config.publicUrl.startsWith('https:');
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
    if (hsts && request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000');
    if (request.url.startsWith('/v1/') || request.url === '/metrics') {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
      if (!reply.hasHeader('content-security-policy') && String(reply.getHeader('content-type') ?? '').includes('json')) {
        reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      }
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  app.setNotFoundHandler((request, reply) => sendError(Errors.routeNotFound(request.method, request.url.split('?')[0] ?? ''), request, reply));

  // A worker process serves only health and metrics, for its supervisor.
  if (opts.systemOnly) await systemRoutes(app, deps);
  else await registerRoutes(app, deps);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}
