/** The routes of `routes` in the catalog (OperationContract.routes), by `<operation>.<route>`, and the entries' `limits`. */
import { fillPath, OperationContract, SubRoute } from './contract';
import { findOperation, NestedInput, OperationContractOf, OperationName, OPERATIONS, ParamsInput } from './catalog';
import type { InferredResult } from './results';

/** Every route of `routes` in the catalog, `<operation>.<route>`, typed. */
type SubRoutesOf<N extends OperationName> = OperationContractOf<N> extends { routes: infer R } ? R : {};
export type SubRouteName = { [N in OperationName]: `${N}.${keyof SubRoutesOf<N> & string}` }[OperationName];
type SubRouteAt<S extends SubRouteName> = S extends `${infer N extends OperationName}.${infer K}` ? (K extends keyof SubRoutesOf<N> ? SubRoutesOf<N>[K] : never) : never;
/** The client streams among them (`stream: true`): the server must serve each (ClientStreamRouter). */
export type StreamRouteName = { [S in SubRouteName]: SubRouteAt<S> extends { stream: true } ? S : never }[SubRouteName];
/** What a route of `routes` answers, typed from its answer's schema. */
export type SubRouteResult<S extends SubRouteName> = SubRouteAt<S> extends { answer: { schema: infer R } } ? InferredResult<R> : never;
/** What a route of `routes` takes, typed from its params (the path's included). */
export type SubRouteInput<S extends SubRouteName> = ParamsInput<SubRouteParams<S>>;
export type SubRouteParams<S extends SubRouteName> = Known<SubRouteAt<S> extends { params: infer P } ? P : never>;
/**
 * What a client stream's `svc-args` hold, typed from its `args` in the catalog (what the server
 * checks them against): `target.kind` and its siblings become `target: {kind, …}`.
 */
export type StreamArgs<S extends StreamRouteName> = NestedInput<ParamsInput<Known<SubRouteAt<S> extends { args: infer A } ? A : never>>>;
/** Without the index signature that SubRoute's `Record<string, ParamSpec>` leaves on the inferred params. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

export function findSubRoute(name: string): SubRoute | undefined {
  const [operation, key] = name.split('.');
  return (findOperation(operation) as OperationContract | undefined)?.routes?.[key];
}

/** Every route of `routes` in the catalog, by name; `stream: true` for the client streams. */
export function subRoutes(): { name: SubRouteName; route: SubRoute }[] {
  return (OPERATIONS as readonly OperationContract[]).flatMap((op) => Object.entries(op.routes ?? {}).map(([key, route]) => ({ name: `${op.name}.${key}` as SubRouteName, route })));
}


/** The path a client calls for a route of `routes`, its `{name}` segments filled in. */
export function subRoutePath(name: SubRouteName, values: Record<string, string>): string {
  const route = findSubRoute(name);
  if (!route) throw new Error(`${name} is no route of the catalog`);
  return fillPath(route.path, values);
}

/** An operation's limits, as its catalog entry says (typed: `limitsOf('device_exec').outputCapBytes`). */
export function limitsOf<N extends OperationName>(name: N): OperationContractOf<N> extends { limits: infer L } ? L : never {
  return (findOperation(name) as OperationContract).limits as never;
}
