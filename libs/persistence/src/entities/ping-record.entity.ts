import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * One completed system check (`ping` workflow). The row proves that a workflow
 * reached PostgreSQL through an activity; `workflow_id` is unique so a retried
 * activity cannot write twice.
 */
@Entity({ name: 'ping_records' })
export class PingRecordEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'workflow_id', type: 'text', unique: true })
  workflowId!: string;

  @Column({ name: 'idempotency_key', type: 'text' })
  idempotencyKey!: string;

  @Column({ type: 'text' })
  message!: string;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ name: 'correlation_id', type: 'text' })
  correlationId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
