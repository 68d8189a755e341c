import { findOperation, OperationContract, OperationName, ParamSpec } from '@svc/common/operations';

/**
 * What a command's flag restates of an operation's parameter, read from its catalog entry (route
 * extras included), so `svc` and the server cannot disagree on a default or an allowed value.
 */
export function catalogParam(operation: OperationName, name: string): ParamSpec {
  const op = findOperation(operation) as OperationContract;
  const spec: ParamSpec | undefined = { ...op.params, ...op.http?.extra }[name];
  if (spec === undefined) throw new Error(`${operation} has no parameter ${name}`);
  return spec;
}

/** The allowed values of an enum parameter, as oclif's `options`. */
export function catalogOptions(operation: OperationName, name: string): string[] {
  const values = catalogParam(operation, name).enum;
  if (values === undefined) throw new Error(`${operation}.${name} has no allowed values`);
  return [...values];
}

export function catalogDefault<T extends string | number | boolean>(operation: OperationName, name: string, type: 'string' | 'number' | 'boolean'): T {
  const value = catalogParam(operation, name).default;
  if (typeof value !== type) throw new Error(`${operation}.${name} has no ${type} default`);
  return value as T;
}
