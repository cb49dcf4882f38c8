import type { DataSource } from 'typeorm';
import { systemClock, type Clock } from './clock';
import { createSystemActivities } from './system-activities';

export * from './clock';
export { createSystemActivities } from './system-activities';

export interface ActivityPorts {
  readonly db: DataSource;
  readonly clock?: Clock;
}

/** Every activity the worker registers, built over its ports. */
export function createActivities(ports: ActivityPorts) {
  const clock = ports.clock ?? systemClock;
  return {
    ...createSystemActivities({ db: ports.db, clock }),
  };
}

/** Workflows import this type only (`import type`), never the implementations. */
export type Activities = ReturnType<typeof createActivities>;
