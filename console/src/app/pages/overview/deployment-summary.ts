import { statusTone } from '../../shared/status-badge/status-tone';
import { isStopped } from '../deployments/deployment-rules';
import type { Count } from './fleet-summary';
import type { OverviewDeployment } from './overview.queries';

export interface DeploymentSummary {
  /** Every deployment that is not Stopped, those needing attention first. */
  readonly active: readonly OverviewDeployment[];
  readonly byState: readonly Count[];
}

/** Failed first, then Degraded, then those on their way, then Ready: the order an operator looks at them. */
const TONE_ORDER = { error: 0, warn: 1, neutral: 2, ok: 3 } as const;

export function summarizeDeployments(deployments: readonly OverviewDeployment[]): DeploymentSummary {
  const active = deployments
    .filter((deployment) => !isStopped(deployment))
    .sort(
      (a, b) =>
        TONE_ORDER[statusTone(a.state)] - TONE_ORDER[statusTone(b.state)] || a.name.localeCompare(b.name),
    );
  const counts = new Map<string, number>();
  for (const deployment of active) {
    counts.set(deployment.state, (counts.get(deployment.state) ?? 0) + 1);
  }
  return { active, byState: [...counts].map(([label, count]) => ({ label, count })) };
}
