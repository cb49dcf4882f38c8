import type { Queryable } from './fleet';

/** One replica of a deployment as the e2e scenarios and benches follow it: where it runs and what its agent saw. */
export interface DeploymentAssignmentView {
  readonly id: string;
  readonly node: string;
  readonly intent: string;
  readonly generation: number;
  readonly observed_state: string | null;
  readonly observed_generation: number | null;
  readonly endpoint_port: number | null;
}

/** The assignments of the deployment named `deployment`, by node name. */
export function listAssignmentsOfDeploymentNamed(
  q: Queryable,
  deployment: string,
): Promise<DeploymentAssignmentView[]> {
  return q.query<DeploymentAssignmentView[]>(
    `SELECT a.id, n.name AS node, a.intent, a.generation, a.observed_state, a.observed_generation, a.endpoint_port
       FROM assignments a JOIN nodes n ON n.id = a.node_id JOIN deployments d ON d.id = a.deployment_id
      WHERE d.name = $1 ORDER BY n.name`,
    [deployment],
  );
}

/** The server's version as it reports it (`server_version`), e.g. `15.14 (Debian 15.14-0+deb12u1)`. */
export async function serverVersion(q: Queryable): Promise<string> {
  const rows = await q.query<{ v: string }[]>(`SELECT current_setting('server_version') AS v`);
  return rows[0]?.v ?? 'unknown';
}

/** The server's major version (`server_version_num` / 10000), e.g. 15 or 18. */
export async function serverMajorVersion(q: Queryable): Promise<number> {
  const rows = await q.query<{ v: string }[]>(`SELECT current_setting('server_version_num') AS v`);
  return Math.floor(Number(rows[0]?.v ?? '0') / 10000);
}
