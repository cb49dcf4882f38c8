import { Query, Resolver } from '@nestjs/graphql';
import { Public } from '../auth';
import { HealthService } from './health.service';
import { Health } from './health.types';

@Resolver(() => Health)
export class HealthResolver {
  constructor(private readonly healthService: HealthService) {}

  @Public()
  @Query(() => Health, { description: 'Version, commit and dependency checks. Readable by anyone.' })
  health(): Promise<Health> {
    return this.healthService.check();
  }
}
