import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { CONTRACTS_VERSION, ErrorCode, LunaNexaError, PROBLEM_CONTENT_TYPE } from '@lunanexa/contracts';
import type { BuildInfo } from '@lunanexa/observability';
import { Public } from '../auth';
import { BUILD_INFO } from '../config';
import { HealthService } from './health.service';

/** Liveness, readiness and version are for load balancers and probes: no credentials. */
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    @Inject(BUILD_INFO) private readonly build: BuildInfo,
  ) {}

  /** Liveness: the process answers. Says nothing about dependencies. */
  @Get('health')
  liveness() {
    return { status: 'ok', version: this.build.version, commit: this.build.commit };
  }

  /** Readiness: PostgreSQL and Temporal answer; 503 problem+json with the failing checks otherwise. */
  @Get('ready')
  async readiness(@Res() res: ServerResponse): Promise<void> {
    const health = await this.health.check();
    if (health.status === 'ok') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ready', checks: health.checks }));
      return;
    }
    const failing = health.checks.filter((c) => c.status !== 'ok').map((c) => c.name);
    const problem = new LunaNexaError(
      ErrorCode.DEPENDENCY_UNAVAILABLE,
      `not ready: ${failing.join(', ')} failing`,
    ).toProblem({
      instance: '/ready',
      requestId: String(res.getHeader('x-request-id') ?? ''),
      correlationId: String(res.getHeader('x-correlation-id') ?? ''),
    });
    res
      .writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE })
      .end(JSON.stringify({ ...problem, checks: health.checks }));
  }

  @Get('version')
  version() {
    return { version: this.build.version, commit: this.build.commit, contracts: CONTRACTS_VERSION };
  }
}
