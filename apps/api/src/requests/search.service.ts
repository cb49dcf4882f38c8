import { Inject, Injectable } from '@nestjs/common';
import { Client } from '@temporalio/client';
import { DataSource } from 'typeorm';
import { API_CONFIG, type ApiConfig } from '../config';
import { TEMPORAL_CLIENT } from '../infrastructure/infrastructure.module';
import { temporalWorkflowUrl } from '../common/temporal-links';
import type { SearchHit } from './search.types';

/** LIKE treats % and _ as wildcards; a prefix search must match them literally. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const PER_KIND = 5;
/** A workflow id nobody recorded is still worth one quick look in Temporal; never long enough to stall the search box. */
const TEMPORAL_LOOKUP_MS = 1500;

/**
 * The console's one search box: a request id, correlation id, workflow id,
 * audit seq, or a node / deployment / model name (prefix). Each hit names
 * the console route that shows it and, for workflows, the Temporal UI link.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly db: DataSource,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async search(term: string): Promise<SearchHit[]> {
    const prefix = likePrefix(term.toLowerCase());
    const q = <T>(sql: string, params: unknown[]): Promise<T[]> => this.db.query(sql, params);
    const [nodes, deployments, models, requests, correlations, workflows, deploymentWorkflows] =
      await Promise.all([
        q<{ name: string; lifecycle: string }>(
          `SELECT name, lifecycle FROM nodes WHERE id = $1 OR name LIKE $2 ESCAPE '\\' ORDER BY name LIMIT ${PER_KIND}`,
          [term, prefix],
        ),
        q<{ name: string; model_ref: string; state: string }>(
          `SELECT name, model_ref, state FROM deployments WHERE id = $1 OR name LIKE $2 ESCAPE '\\' ORDER BY name LIMIT ${PER_KIND}`,
          [term, prefix],
        ),
        q<{ ref: string; deployments: number }>(
          `SELECT m.ref, (SELECT count(*)::int FROM deployments d WHERE d.model_version_id = m.id) AS deployments
             FROM model_versions m WHERE m.ref = $1 OR m.model LIKE $2 ESCAPE '\\' ORDER BY m.ref LIMIT ${PER_KIND}`,
          [term, prefix],
        ),
        q<{ request_id: string; outcome: string; model_ref: string | null; requested_model: string }>(
          `SELECT request_id, outcome, model_ref, requested_model FROM request_records
            WHERE request_id = $1 ORDER BY id DESC LIMIT ${PER_KIND}`,
          [term],
        ),
        q<{ events: number; requests: number }>(
          `SELECT (SELECT count(*)::int FROM audit_events WHERE correlation_id = $1) AS events,
                  (SELECT count(*)::int FROM request_records WHERE correlation_id = $1) AS requests`,
          [term],
        ),
        q<{ events: number }>(`SELECT count(*)::int AS events FROM audit_events WHERE workflow_id = $1`, [
          term,
        ]),
        q<{ name: string }>(`SELECT name FROM deployments WHERE workflow_id = $1`, [term]),
      ]);

    const hits: SearchHit[] = [];
    if (/^[1-9][0-9]{0,15}$/.test(term)) {
      hits.push({
        kind: 'audit',
        title: `Audit event #${term}`,
        detail: null,
        route: `/audit?seq=${term}`,
        temporalUiUrl: null,
      });
    }
    for (const request of requests) {
      hits.push({
        kind: 'request',
        title: `Request ${request.request_id}`,
        detail: `${request.outcome} · ${request.model_ref ?? request.requested_model}`,
        route: `/requests?requestId=${encodeURIComponent(request.request_id)}`,
        temporalUiUrl: null,
      });
    }
    const correlation = correlations[0];
    if (correlation !== undefined && correlation.events + correlation.requests > 0) {
      hits.push({
        kind: 'correlation',
        title: `Correlation ${term}`,
        detail: `${correlation.events} audit event(s), ${correlation.requests} request(s)`,
        route: `/audit?correlationId=${encodeURIComponent(term)}`,
        temporalUiUrl: null,
      });
    }
    const workflowEvents = workflows[0]?.events ?? 0;
    const workflowDeployment = deploymentWorkflows[0]?.name;
    if (workflowEvents > 0 || workflowDeployment !== undefined || (await this.temporalKnows(term))) {
      hits.push({
        kind: 'workflow',
        title: `Workflow ${term}`,
        detail:
          workflowDeployment !== undefined
            ? `runs deployment ${workflowDeployment}`
            : `${workflowEvents} audit event(s)`,
        route:
          workflowDeployment !== undefined
            ? `/deployments/${workflowDeployment}`
            : `/audit?workflowId=${encodeURIComponent(term)}`,
        temporalUiUrl: temporalWorkflowUrl(
          this.config.LUNANEXA_TEMPORAL_UI_URL,
          this.config.TEMPORAL_NAMESPACE,
          term,
        ),
      });
    }
    for (const node of nodes) {
      hits.push({
        kind: 'node',
        title: `Node ${node.name}`,
        detail: node.lifecycle,
        route: `/nodes/${node.name}`,
        temporalUiUrl: null,
      });
    }
    for (const deployment of deployments) {
      hits.push({
        kind: 'deployment',
        title: `Deployment ${deployment.name}`,
        detail: `${deployment.state} · ${deployment.model_ref}`,
        route: `/deployments/${deployment.name}`,
        temporalUiUrl: null,
      });
    }
    for (const model of models) {
      hits.push({
        kind: 'model',
        title: `Model ${model.ref}`,
        detail: `${model.deployments} deployment(s)`,
        route: `/deployments?model=${encodeURIComponent(model.ref)}`,
        temporalUiUrl: null,
      });
    }
    return hits;
  }

  /** Whether Temporal has a workflow with this id; false when it has none or does not answer in time. */
  private async temporalKnows(workflowId: string): Promise<boolean> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:/@-]{2,299}$/.test(workflowId)) return false;
    try {
      await this.temporal.withAbortSignal(AbortSignal.timeout(TEMPORAL_LOOKUP_MS), () =>
        this.temporal.workflow.getHandle(workflowId).describe(),
      );
      return true;
    } catch {
      return false;
    }
  }
}
