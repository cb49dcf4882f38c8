import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@lunanexa/contracts';

/**
 * An operator account. `username` is stored lower-case (unique regardless of
 * case); `passwordHash` is `scrypt$N$r$p$salt$hash`, never the password.
 * Bumping `sessionEpoch` revokes every session token issued before.
 */
@Entity({ name: 'operators' })
export class OperatorEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text', unique: true })
  username!: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @Column({ type: 'text' })
  role!: Role;

  @Column({ name: 'session_epoch', type: 'integer', default: 0 })
  sessionEpoch!: number;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
