/**
 * Deploy files (docs/runspec.md) → DeployRequest, for `svc deploy` and the dashboard alike. Pure:
 * no node builtin, and the `yaml` package is the caller's (passed to parseYamlSource), so a device
 * never carries it and a browser bundle can take this entry point whole.
 */
export * from './runspec-normalize';
export * from './spec-problem';
export * from './request-problem';
export * from './spec-request';
export * from './yaml-source';
export { formatDeployPath, type DeployPath, type DeployProblem } from '../deployments/request-checks';
export { InvalidInputError } from '../errors';
