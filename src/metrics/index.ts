/**
 * Metrics: `GET /metrics` in the Prometheus text format, the request middleware that feeds
 * it, and the registry behind them. See docs/operations.md ("Metrics").
 *
 * @module
 */
export { metricsHandler, requestMetrics } from "./http.ts";
export { COUNT_CAP, type MetricsSources, ServiceMetrics } from "./service.ts";
export { Counter, Gauge, Histogram, type Labels, Registry } from "./registry.ts";
