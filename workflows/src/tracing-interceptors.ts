import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * OpenTelemetry spans for workflow code (bundled into the workflow sandbox):
 * a run is a child of the span that started it (the API's, through the
 * workflow's headers), and each scheduled activity carries the run's span
 * context in its headers. Spans leave the sandbox through the `exporter` sink.
 * The worker loads this module only when tracing is on; it issues no commands,
 * so histories replay the same with or without it.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
