import type { EntityManager } from 'typeorm';
import { PingRecordEntity } from './entities/ping-record.entity';
import type { Queryable } from './fleet';

/** The system check a ping workflow recorded, if it has (one per workflow id). */
export async function findPingRecord(
  manager: EntityManager,
  workflowId: string,
): Promise<PingRecordEntity | null> {
  return manager.getRepository(PingRecordEntity).findOne({ where: { workflowId } });
}

export async function insertPingRecord(manager: EntityManager, ping: PingRecordEntity): Promise<void> {
  await manager.getRepository(PingRecordEntity).insert(ping);
}

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
