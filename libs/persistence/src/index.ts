export * from './data-source';
export * from './audit-log';
export { PingRecordEntity } from './entities/ping-record.entity';
export { AuditEventEntity } from './entities/audit-event.entity';
export { OperatorEntity } from './entities/operator.entity';
export { ApiTokenEntity } from './entities/api-token.entity';
export * from './testing';
export * from './controller-key';
export * from './fleet';
