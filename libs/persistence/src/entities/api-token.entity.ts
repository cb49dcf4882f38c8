import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@lunanexa/contracts';

/**
 * A long-lived credential for automation, owned by an operator. Only the
 * sha256 of the token is kept; `prefix` (the token's first characters) is
 * what lists and audit events show. A token's role never exceeds its owner's.
 */
@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'operator_id', type: 'uuid' })
  operatorId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'token_hash', type: 'char', length: 64, unique: true })
  tokenHash!: string;

  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text' })
  role!: Role;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
