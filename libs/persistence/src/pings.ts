import type { EntityManager } from 'typeorm';
import { PingRecordEntity } from './entities/ping-record.entity';

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
