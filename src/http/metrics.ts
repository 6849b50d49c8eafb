import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One registry per app instance, so tests can build many apps in one process. */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Capabilities register their own gauges (jobs, syncs) here. */
  gauge(name: string, help: string, labelNames: readonly string[], collect: (g: Gauge) => Promise<void> | void): void;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'atrium_' });
  const httpRequests = new Counter({
    name: 'atrium_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'atrium_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    httpRequests,
    httpDuration,
    gauge(name, help, labelNames, collect) {
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        async collect() {
          await collect(this);
        },
      });
    },
  };
}
