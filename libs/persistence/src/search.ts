import type { Queryable } from './fleet';

/** LIKE treats % and _ as wildcards; a prefix search must match them literally. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** What the console's search box found for one term, each kind capped at `perKind`. */
export interface SearchCandidates {
  readonly nodes: { name: string; lifecycle: string }[];
  readonly deployments: { name: string; model_ref: string; state: string }[];
  readonly models: { ref: string; deployments: number }[];
  readonly requests: {
    request_id: string;
    outcome: string;
    model_ref: string | null;
    requested_model: string;
  }[];
  /** Audit events and request records sharing the term as correlation id. */
  readonly correlation: { events: number; requests: number } | undefined;
  /** Audit events of the term as a workflow id. */
  readonly workflowEvents: number;
  /** The deployment whose workflow id is the term. */
  readonly workflowDeployment: string | undefined;
}

/**
 * The term as a request id, correlation id or workflow id (exact), or as a
 * node / deployment / model name (case-insensitive prefix, or exact id).
 */
export async function findSearchCandidates(
  q: Queryable,
  term: string,
  perKind: number,
): Promise<SearchCandidates> {
  const prefix = likePrefix(term.toLowerCase());
  const [nodes, deployments, models, requests, correlations, workflows, deploymentWorkflows] =
    await Promise.all([
      q.query<{ name: string; lifecycle: string }[]>(
        `SELECT name, lifecycle FROM nodes WHERE id = $1 OR name LIKE $2 ESCAPE '\\' ORDER BY name LIMIT $3`,
        [term, prefix, perKind],
      ),
      q.query<{ name: string; model_ref: string; state: string }[]>(
        `SELECT name, model_ref, state FROM deployments WHERE id = $1 OR name LIKE $2 ESCAPE '\\' ORDER BY name LIMIT $3`,
        [term, prefix, perKind],
      ),
      q.query<{ ref: string; deployments: number }[]>(
        `SELECT m.ref, (SELECT count(*)::int FROM deployments d WHERE d.model_version_id = m.id) AS deployments
         FROM model_versions m WHERE m.ref = $1 OR m.model LIKE $2 ESCAPE '\\' ORDER BY m.ref LIMIT $3`,
        [term, prefix, perKind],
      ),
      q.query<{ request_id: string; outcome: string; model_ref: string | null; requested_model: string }[]>(
        `SELECT request_id, outcome, model_ref, requested_model FROM request_records
        WHERE request_id = $1 ORDER BY id DESC LIMIT $2`,
        [term, perKind],
      ),
      q.query<{ events: number; requests: number }[]>(
        `SELECT (SELECT count(*)::int FROM audit_events WHERE correlation_id = $1) AS events,
              (SELECT count(*)::int FROM request_records WHERE correlation_id = $1) AS requests`,
        [term],
      ),
      q.query<{ events: number }[]>(
        `SELECT count(*)::int AS events FROM audit_events WHERE workflow_id = $1`,
        [term],
      ),
      q.query<{ name: string }[]>(`SELECT name FROM deployments WHERE workflow_id = $1`, [term]),
    ]);
  return {
    nodes,
    deployments,
    models,
    requests,
    correlation: correlations[0],
    workflowEvents: workflows[0]?.events ?? 0,
    workflowDeployment: deploymentWorkflows[0]?.name,
  };
}
