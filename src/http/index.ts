export { type App, buildApp } from './app.ts';
export type { AppDeps, RequestAuthenticator } from './deps.ts';
export { createMetrics, type Metrics } from './metrics.ts';
