import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import { AuditService } from './audit.service';
import {
  AuditChainStatus,
  AuditChainVerificationModeValues,
  AuditEvent,
  AuditEventFilter,
  AuditEventPage,
  type AuditChainVerificationMode,
} from './audit.types';

const MAX_PAGE = 200;

function requirePositiveInt(path: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} must be between 1 and ${max}`, [
      { path, message: `must be between 1 and ${max}` },
    ]);
  }
}

@Resolver()
export class AuditResolver {
  constructor(private readonly audit: AuditService) {}

  @RequirePermission('read')
  @Query(() => AuditEventPage, { description: 'Audit events, newest first, paged by seq.' })
  auditEvents(
    @Args('first', { type: () => Int, defaultValue: 50 }) first: number,
    @Args('before', {
      type: () => Int,
      nullable: true,
      description: 'Only events with a seq lower than this (the previous page’s nextBefore).',
    })
    before: number | null,
    // Optional and last so its reflected type is the class itself, which the global ValidationPipe needs.
    @Args('filter', { type: () => AuditEventFilter, nullable: true }) filter?: AuditEventFilter,
  ): Promise<AuditEventPage> {
    requirePositiveInt('first', first, MAX_PAGE);
    if (before !== null && before !== undefined)
      requirePositiveInt('before', before, Number.MAX_SAFE_INTEGER);
    return this.audit.list(filter, first, before ?? null);
  }

  @RequirePermission('read')
  @Query(() => AuditEvent, {
    nullable: true,
    description: 'One audit event with its chain link verified; null when no event has this seq.',
  })
  auditEvent(@Args('seq', { type: () => Int }) seq: number): Promise<AuditEvent | null> {
    requirePositiveInt('seq', seq, Number.MAX_SAFE_INTEGER);
    return this.audit.get(seq);
  }

  @RequirePermission('read')
  @Query(() => AuditChainStatus, {
    description:
      'Verifies the audit chain and reports the first break: by default the events since the last verified ' +
      'checkpoint; FULL walks all of it (priced 10× higher in the query budget).',
  })
  auditChainStatus(
    @Args('mode', {
      type: () => AuditChainVerificationModeValues,
      defaultValue: AuditChainVerificationModeValues.INCREMENTAL,
    })
    mode: AuditChainVerificationMode,
  ): Promise<AuditChainStatus> {
    return this.audit.chainStatus(mode);
  }
}
