import { METRICS_CONTENT_TYPE, renderMetrics } from '@caravel/metrics';
import { Controller, Get, Header } from '@nestjs/common';

/**
 * Prometheus' scrape target, the same in every service and in the embedded host
 * (docs/observability.md). Read-only figures with bounded labels (no thread, repository or
 * person): deployments keep it off the public ingress (the Helm chart routes only webhooks and
 * the dashboard).
 */
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  metrics(): Promise<string> {
    return renderMetrics();
  }
}
