import type { EntityManager } from 'typeorm';
import { PingRecordEntity } from './entities/ping-record.entity';
import type { Queryable } from './fleet';

/** The newest ping records first. */
export async function recentPingRecords(
  db: Pick<EntityManager, 'getRepository'>,
  limit: number,
): Promise<PingRecordEntity[]> {
  return db.getRepository(PingRecordEntity).find({ order: { createdAt: 'DESC' }, take: limit });
}

/** Readiness: the database answers a trivial query (rejects when it does not). */
export async function pingDatabase(q: Queryable): Promise<void> {
  await q.query('SELECT 1');
}
