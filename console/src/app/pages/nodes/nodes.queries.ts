import type * as Schema from '@lunanexa/sdk/generated/graphql';
import {
  ConsoleApproveNodeDocument,
  ConsoleRejectNodeDocument,
  ConsoleCordonNodeDocument,
  ConsoleCreateBootstrapTokenDocument,
  ConsoleDrainNodeDocument,
  ConsoleFleetNodeDocument,
  ConsoleFleetNodesDocument,
  ConsoleNodeGpuSeriesDocument,
  ConsoleNodeRecoveriesDocument,
  type ConsoleNodeRecoveriesQuery,
  ConsoleRotateNodeCredentialDocument,
  ConsoleSetNodeLabelsDocument,
  ConsoleSetNodeTaintsDocument,
  ConsoleUncordonNodeDocument,
  type ConsoleApproveNodeMutation,
  type ConsoleCreateBootstrapTokenMutation,
  type ConsoleDrainNodeMutation,
  type ConsoleFleetNodesQuery,
  type ConsoleNodeGpuSeriesQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * The fleet queries and mutations this view sends
 * (libs/sdk/graphql/console/nodes.graphql), with result types generated from
 * each selection. Every node a query or mutation returns has the same
 * selection, so a mutation's answer can replace the polled node without a gap
 * in what the page shows. Lifecycle, readiness, intent and condition values
 * are plain strings in schema v1: a newer API may add values and the console
 * must still show them as sent.
 */

export type FleetNode = ConsoleFleetNodesQuery['nodes'][number];
export type NodeCondition = FleetNode['conditions'][number];
export type Label = FleetNode['labels'][number];
export type Taint = FleetNode['taints'][number];
export type Gpu = FleetNode['gpus'][number];
export type GpuTelemetry = FleetNode['gpuTelemetry'][number];
export type GpuSeries = NonNullable<ConsoleNodeGpuSeriesQuery['node']>['gpuSeries'][number];
export type Assignment = FleetNode['assignments'][number];
export type CreatedBootstrapToken = ConsoleCreateBootstrapTokenMutation['createBootstrapToken'];
export type BootstrapToken = CreatedBootstrapToken['bootstrapToken'];
export type NodeOperation = ConsoleApproveNodeMutation['approveNode'];
export type DrainResult = ConsoleDrainNodeMutation['drainNode'];

export type LabelInput = Schema.LabelInput;
export type TaintInput = Schema.TaintInput;
export type CreateBootstrapTokenInput = Schema.CreateBootstrapTokenInput;

export const FLEET_NODES = ConsoleFleetNodesDocument;
export const FLEET_NODE = ConsoleFleetNodeDocument;
export const NODE_GPU_SERIES = ConsoleNodeGpuSeriesDocument;
export const NODE_RECOVERIES = ConsoleNodeRecoveriesDocument;
export type RecoveryEvent = ConsoleNodeRecoveriesQuery['auditEvents']['events'][number];
export const CREATE_BOOTSTRAP_TOKEN = ConsoleCreateBootstrapTokenDocument;
export const APPROVE_NODE = ConsoleApproveNodeDocument;
export const REJECT_NODE = ConsoleRejectNodeDocument;
export const CORDON_NODE = ConsoleCordonNodeDocument;
export const UNCORDON_NODE = ConsoleUncordonNodeDocument;
export const DRAIN_NODE = ConsoleDrainNodeDocument;
export const ROTATE_NODE_CREDENTIAL = ConsoleRotateNodeCredentialDocument;
export const SET_NODE_LABELS = ConsoleSetNodeLabelsDocument;
export const SET_NODE_TAINTS = ConsoleSetNodeTaintsDocument;
