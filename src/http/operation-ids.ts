/** Where the browsable API reference is served (Swagger UI over `/v1/openapi.json`'s document). */
export const API_REFERENCE_PREFIX = '/docs/api';

/**
 * Stable OpenAPI names for routes that do not name themselves: the HTTP method then the path's words, a collection
 * word made singular before the id that picks one of it — `GET /v1/connectors` → `getConnectors`,
 * `GET /v1/connectors/{id}` → `getConnector`, `POST /v1/connectors/{id}/sync` → `postConnectorSync`. Client
 * generators name their methods from these, so changing one is a breaking change (a test pins them unique).
 */
export function operationIdFor(method: string, url: string): string {
  const words: string[] = [];
  for (const segment of url.split('/')) {
    if (segment === '' || segment === 'v1' || segment === '*') continue;
    if (segment.startsWith(':') || segment.startsWith('{')) {
      const last = words.pop();
      if (last !== undefined) words.push(singular(last));
      continue;
    }
    words.push(...segment.split(/[-_.]+/).filter(Boolean));
  }
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us)$/.test(word)) return word;
  if (/(xes|ches|shes|sses)$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/** The API area a route belongs to, for OpenAPI tags: the path's first word after `/v1` (`connectors`, `federate`…). */
export function tagFor(url: string): string {
  const first = url.split('/').filter((s) => s !== '' && s !== 'v1')[0];
  return first && !first.startsWith(':') ? first : 'system';
}
