import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import type { AppDeps } from '../deps.ts';

// The console talks only to this origin's API; nothing is loaded from elsewhere (no CDN).
const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Atrium: console not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>The web console is not built</h1>
<p>The Atrium API is running (see <a href="/v1/health">/v1/health</a> and <a href="/v1/openapi.json">/v1/openapi.json</a>),
but the console's files were not found. Build them with:</p>
<pre style="background:#f3f4f6;padding:.75rem;border-radius:4px">npm run build:web</pre>
<p>then restart the service. <code>npm install</code> normally builds it for you.</p>
</body></html>`;

/** Paths the console must never shadow: the API, metrics. */
export function isReservedPath(urlPath: string): boolean {
  return urlPath === '/v1' || urlPath.startsWith('/v1/') || urlPath === '/metrics' || urlPath.startsWith('/metrics/');
}

/**
 * What to send for a GET of `urlPath`: a file under the console root, the SPA's index.html for an
 * app route, or nothing (a path that names a missing file).
 */
export function resolveConsolePath(root: string, urlPath: string): { file: string; immutable: boolean } | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = path.posix.normalize(decoded).replace(/^\/+/, '');
  // No parent references and no dot files (.env, .git) at all.
  if (rel.split('/').some((s) => s.startsWith('.'))) return null;
  if (rel !== '') {
    const abs = path.join(root, rel);
    if (abs.startsWith(root + path.sep) && isFile(abs)) return { file: rel, immutable: rel.startsWith('assets/') };
  }
  // A missing file (anything with an extension) is a 404; everything else is a console route.
  const last = rel.split('/').pop() ?? '';
  if (last.includes('.')) return null;
  return { file: 'index.html', immutable: false };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** index.html from memory, re-read when a rebuild changes it (its asset names change with every build). */
function indexReader(file: string): () => string | null {
  let cached: { mtimeMs: number; body: string } | null = null;
  return () => {
    try {
      const mtimeMs = statSync(file).mtimeMs;
      if (!cached || cached.mtimeMs !== mtimeMs) cached = { mtimeMs, body: readFileSync(file, 'utf8') };
      return cached.body;
    } catch {
      return null; // mid-rebuild, or deleted
    }
  };
}

/** Serves the built web console (web/dist) at `/` with an SPA fallback; never answers for /v1 or /metrics. */
export async function webRoutes(app: App, deps: AppDeps): Promise<void> {
  const root = path.resolve(deps.config.webDir);
  const built = existsSync(path.join(root, 'index.html'));
  if (!built) deps.log.warn({ webDir: root }, 'web console not built: run npm run build:web');
  // serve:false only adds reply.sendFile (with its traversal checks); the route below decides what to send.
  if (built) await app.register(fastifyStatic, { root, serve: false, index: false, preCompressed: true });
  const indexHtml = indexReader(path.join(root, 'index.html'));

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const urlPath = request.url.split('?')[0] ?? '/';
    if (isReservedPath(urlPath)) throw Errors.routeNotFound(request.method, urlPath);
    reply.headers(CONSOLE_HEADERS);
    const notBuilt = () => reply.status(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_PAGE);
    if (!built) return notBuilt();
    const target = resolveConsolePath(root, urlPath);
    if (!target) throw Errors.routeNotFound(request.method, urlPath);
    if (target.file === 'index.html') {
      const html = indexHtml();
      if (html === null) return notBuilt();
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    }
    reply.header('cache-control', target.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    return reply.sendFile(target.file, { cacheControl: false });
  };

  const options = { config: { permission: 'public' as const }, schema: { hide: true } };
  app.get('/', options, handler);
  app.get('/*', options, handler);
}
