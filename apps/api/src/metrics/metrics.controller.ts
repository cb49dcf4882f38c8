import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { ServiceMetrics } from '@lunanexa/observability';
import { Public } from '../auth';

export const SERVICE_METRICS = Symbol('SERVICE_METRICS');

/** Prometheus scrapes without credentials; bind the API to a private address or filter /metrics at the proxy. */
@Public()
@Controller()
export class MetricsController {
  constructor(@Inject(SERVICE_METRICS) private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  async scrape(@Res() res: ServerResponse): Promise<void> {
    const body = await this.metrics.registry.metrics();
    res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(body);
  }
}
