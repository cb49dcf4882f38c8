import {
  ConsoleApproveLicenseDocument,
  ConsoleCreateBenchmarkProfileDocument,
  ConsoleCreateEvaluationSuiteDocument,
  ConsoleCreateLicenseDocument,
  ConsoleRegisterRuntimeDocument,
  ConsoleRegistryDocument,
  ConsoleRejectLicenseDocument,
  type ConsoleRegistryQuery,
} from '@lunanexa/sdk/generated/operations';

/*
 * The registry's records besides models and versions (libs/sdk/graphql/console/registry.graphql):
 * licenses and their review, runtimes and the allowlist, evaluation suites and benchmark profiles.
 */

export type RegistryAnswer = ConsoleRegistryQuery;
export type RegistryLicense = ConsoleRegistryQuery['licenses'][number];
export type RegistryRuntime = ConsoleRegistryQuery['runtimes'][number];
export type RegistrySuite = ConsoleRegistryQuery['evaluationSuites'][number];
export type RegistryProfile = ConsoleRegistryQuery['benchmarkProfiles'][number];
export type RegistryModel = ConsoleRegistryQuery['models'][number];

export const REGISTRY = ConsoleRegistryDocument;
export const CREATE_LICENSE = ConsoleCreateLicenseDocument;
export const APPROVE_LICENSE = ConsoleApproveLicenseDocument;
export const REJECT_LICENSE = ConsoleRejectLicenseDocument;
export const REGISTER_RUNTIME = ConsoleRegisterRuntimeDocument;
export const CREATE_EVALUATION_SUITE = ConsoleCreateEvaluationSuiteDocument;
export const CREATE_BENCHMARK_PROFILE = ConsoleCreateBenchmarkProfileDocument;
