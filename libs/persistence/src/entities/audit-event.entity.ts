import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Append-only, hash-chained audit log. The database itself refuses UPDATE,
 * DELETE and TRUNCATE on this table (see the initial migration), so even a
 * buggy or compromised service cannot rewrite history without dropping the
 * trigger — which the chain verification would then expose.
 */
@Entity({ name: 'audit_events' })
export class AuditEventEntity {
  /** Chain position; assigned by the appender under an advisory lock. */
  @PrimaryColumn({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  seq!: number;

  @Column({ type: 'uuid', unique: true })
  id!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'text' })
  decision!: string;

  @Column({ type: 'jsonb' })
  evidence!: Record<string, unknown>;

  @Column({ type: 'text' })
  result!: string;

  @Column({ name: 'correlation_id', type: 'text' })
  correlationId!: string;

  @Column({ name: 'workflow_id', type: 'text', nullable: true })
  workflowId!: string | null;

  @Column({ name: 'prev_hash', type: 'char', length: 64 })
  prevHash!: string;

  @Column({ type: 'char', length: 64, unique: true })
  hash!: string;
}
