export const TEMPORAL_CLIENT = Symbol('TEMPORAL_CLIENT');

/** A DataSource of its own for heartbeat ingest (LUNANEXA_HEARTBEAT_DB_POOL_SIZE connections). */
export const HEARTBEAT_DB = Symbol('HEARTBEAT_DB');
