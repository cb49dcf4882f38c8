/** Deep link to a workflow in the Temporal UI (v2 route layout). */
export function temporalWorkflowUrl(
  uiBase: string,
  namespace: string,
  workflowId: string,
  runId?: string,
): string {
  const base = uiBase.replace(/\/+$/, '');
  const path = `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${path}/${encodeURIComponent(runId)}/history` : path;
}
