import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type {
  AuditChainStatus,
  AuditEvent,
  AuditEventFilter,
  AuditEventPage,
} from '@lunanexa/sdk/generated/graphql';

/** What a row of the list shows; the detail asks for the rest. */
export type AuditEventRow = Pick<
  AuditEvent,
  | 'seq'
  | 'occurredAt'
  | 'actor'
  | 'action'
  | 'decision'
  | 'result'
  | 'correlationId'
  | 'workflowId'
  | 'temporalUiUrl'
>;

export interface AuditListPage extends Omit<AuditEventPage, 'events'> {
  readonly events: readonly AuditEventRow[];
}

export const AUDIT_EVENTS = graphqlOperation<
  { readonly auditEvents: AuditListPage },
  { readonly filter: AuditEventFilter; readonly first: number; readonly before: number | null }
>(`
  query ConsoleAuditEvents($filter: AuditEventFilter, $first: Int, $before: Int) {
    auditEvents(filter: $filter, first: $first, before: $before) {
      nextBefore
      events {
        seq
        occurredAt
        actor
        action
        decision
        result
        correlationId
        workflowId
        temporalUiUrl
      }
    }
  }
`);

export const AUDIT_EVENT = graphqlOperation<
  { readonly auditEvent: AuditEvent | null },
  { readonly seq: number }
>(`
  query ConsoleAuditEvent($seq: Int!) {
    auditEvent(seq: $seq) {
      seq
      id
      occurredAt
      actor
      action
      decision
      result
      correlationId
      workflowId
      temporalUiUrl
      evidenceJson
      hash
      prevHash
      chain { verified reason }
    }
  }
`);

export const AUDIT_CHAIN_STATUS = graphqlOperation<{ readonly auditChainStatus: AuditChainStatus }>(`
  query ConsoleAuditChainStatus {
    auditChainStatus { valid checked firstBrokenSeq reason }
  }
`);
