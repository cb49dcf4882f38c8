import { Inject, Injectable } from '@nestjs/common';
import { Client } from '@temporalio/client';
import { findSearchCandidates } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { API_CONFIG, type ApiConfig } from '../config';
import { TEMPORAL_CLIENT } from '../infrastructure/infrastructure.module';
import { temporalWorkflowUrl } from '../common/temporal-links';
import type { SearchHit } from './search.types';

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
    const { nodes, deployments, models, requests, correlation, workflowEvents, workflowDeployment } =
      await findSearchCandidates(this.db, term, PER_KIND);

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
    if (correlation !== undefined && correlation.events + correlation.requests > 0) {
      hits.push({
        kind: 'correlation',
        title: `Correlation ${term}`,
        detail: `${correlation.events} audit event(s), ${correlation.requests} request(s)`,
        route: `/audit?correlationId=${encodeURIComponent(term)}`,
        temporalUiUrl: null,
      });
    }
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
