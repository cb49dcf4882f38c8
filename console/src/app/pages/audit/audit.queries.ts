import {
  ConsoleAuditChainStatusDocument,
  ConsoleAuditEventDocument,
  ConsoleAuditEventsDocument,
  type ConsoleAuditEventsQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * The audit operations (libs/sdk/graphql/console/audit.graphql). Result types
 * are generated from each selection, so a type never claims a field the
 * query did not ask for.
 */

/** A page of the list: what a row shows; the detail asks for the rest. */
export type AuditListPage = ConsoleAuditEventsQuery['auditEvents'];
export type AuditEventRow = AuditListPage['events'][number];

export const AUDIT_EVENTS = ConsoleAuditEventsDocument;
export const AUDIT_EVENT = ConsoleAuditEventDocument;
export const AUDIT_CHAIN_STATUS = ConsoleAuditChainStatusDocument;
