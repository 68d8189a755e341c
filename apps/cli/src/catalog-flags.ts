import { Args, Flags } from '@oclif/core';
import type { Arg, BooleanFlag, Flag, OptionFlag } from '@oclif/core/interfaces';
import { findOperation, findSubRoute, OperationContract, OperationName, ParamSpec, RouteParams, SubRouteName, SubRouteParams } from '@svc/common/operations';

/**
 * A command's arguments and flags, derived from the catalog parameter each one gives (an
 * operation's, its route's extras, or a route of its `routes`): type, required, default, allowed
 * values and whole-number bounds come from the entry, so `svc`, the server and `svc mcp` cannot
 * disagree. A command keeps its own words and spelling (`--timeout` for timeout_secs, `<who>` for
 * email_or_org_id, a description that speaks of flags); command-params.spec.ts checks that every
 * parameter of each command's operation is taken by one of them, as the catalog says.
 */
export type ParamSource = OperationName | SubRouteName;
type ParamsOf<S extends ParamSource> = S extends OperationName ? RouteParams<S> : S extends SubRouteName ? SubRouteParams<S> : never;
type NameOf<S extends ParamSource> = keyof ParamsOf<S> & string;
type Given<S extends ParamSource, P extends NameOf<S>, T> = ParamsOf<S>[P] extends { required: true } ? T : T | undefined;

/** Which catalog parameter a flag or argument gives. */
export interface ParamBinding {
  source: ParamSource;
  param: string;
  spec: ParamSpec;
}

const BINDINGS = new WeakMap<object, ParamBinding>();

/** The catalog parameter a flag or argument was derived from, if any. */
export function bindingOf(flagOrArg: object): ParamBinding | undefined {
  return BINDINGS.get(flagOrArg);
}

export function catalogParam(source: ParamSource, name: string): ParamSpec {
  const op = findOperation(source) as OperationContract | undefined;
  const params: Record<string, ParamSpec> | undefined = op ? { ...op.params, ...op.http?.extra } : findSubRoute(source)?.params;
  if (params === undefined) throw new Error(`${source} is no operation or route of the catalog`);
  const spec = params[name];
  if (spec === undefined) throw new Error(`${source} has no parameter ${name}`);
  return spec;
}

/** How a command shows a parameter: its own words and spelling, never what the parameter accepts. */
export interface Shown {
  description?: string;
  char?: Flag<unknown>['char'];
  aliases?: string[];
  exclusive?: string[];
}

function bound<T extends object>(source: ParamSource, param: string, spec: ParamSpec, made: T): T {
  BINDINGS.set(made, { source, param, spec });
  return made;
}

const requiredIf = (spec: ParamSpec) => (spec.required ? { required: true } : {});

type Extra = Shown & { parse?: (input: string) => Promise<string>; delimiter?: ',' };

/**
 * A parameter as the flag of its type: a string with the catalog's allowed values and default; a
 * list, one value per flag (or `delimiter`-separated); a boolean; a number, which `svc` takes as a
 * whole number with the catalog's default, within the catalog's bounds when the catalog takes whole
 * numbers only (otherwise the smallest whole number it allows is the lower bound, and the server
 * refuses what is above its maximum, naming the parameter). `parse` turns the command's syntax
 * into the catalog's (a time like "2h" into ISO 8601).
 */
export function paramFlag(source: ParamSource, param: string, shown: Extra = {}): Flag<unknown> {
  const spec = catalogParam(source, param);
  const common = { description: spec.description, ...requiredIf(spec) };
  const made: object | undefined =
    spec.type === 'boolean'
      ? Flags.boolean({ description: spec.description, default: spec.default === true, ...shown } as never)
      : spec.type === 'number'
        ? Flags.integer({ ...common, ...(typeof spec.default === 'number' ? { default: spec.default } : {}), ...integerBounds(spec), ...shown } as never)
        : spec.type === 'string[]'
          ? Flags.string({ ...common, multiple: true, ...shown } as never)
          : spec.type === 'string'
            ? Flags.string({ ...common, ...(spec.enum ? { options: [...spec.enum] } : {}), ...(spec.default !== undefined ? { default: String(spec.default) } : {}), ...shown } as never)
            : undefined;
  if (made === undefined) throw new Error(`${source}.${param}: an environment map has no flag`);
  return bound(source, param, spec, made) as Flag<unknown>;
}

/** paramFlag, typed as the command reads it; the catalog's parameter must be of that type. */
export function stringFlag<S extends ParamSource, P extends NameOf<S>>(source: S, param: P, shown: Shown & { parse?: (input: string) => Promise<string> } = {}): OptionFlag<Given<S, P, string>> {
  return typed(source, param, 'string', shown) as never;
}
export function stringsFlag<S extends ParamSource, P extends NameOf<S>>(source: S, param: P, shown: Shown & { delimiter?: ',' } = {}): OptionFlag<string[] | undefined> {
  return typed(source, param, 'string[]', shown) as never;
}
export function booleanFlag<S extends ParamSource, P extends NameOf<S>>(source: S, param: P, shown: Shown = {}): BooleanFlag<boolean> {
  return typed(source, param, 'boolean', shown) as never;
}
/** Read as a number: the catalog gives it a default. */
export function integerFlag<S extends ParamSource, P extends NameOf<S>>(source: S, param: P, shown: Shown = {}): OptionFlag<number> {
  if (typeof catalogParam(source, param).default !== 'number') throw new Error(`${source}.${param} has no default: give the flag one in the catalog`);
  return typed(source, param, 'number', shown) as never;
}

function typed(source: ParamSource, param: string, type: ParamSpec['type'], shown: Extra): Flag<unknown> {
  const spec = catalogParam(source, param);
  if (spec.type !== type) throw new Error(`${source}.${param} is a ${spec.type}, not a ${type}`);
  return paramFlag(source, param, shown);
}

export function integerBounds(spec: ParamSpec): { min?: number; max?: number } {
  const low = spec.exclusiveMinimum !== undefined ? Math.floor(spec.exclusiveMinimum) + 1 : spec.minimum !== undefined ? Math.ceil(spec.minimum) : undefined;
  return { ...(low !== undefined ? { min: low } : {}), ...(spec.integer && spec.maximum !== undefined ? { max: spec.maximum } : {}) };
}

/** A positional argument: required as the catalog says; `name` spells it in help (`<new-id>`). */
export function paramArg<S extends ParamSource, P extends NameOf<S>>(source: S, param: P, shown: { description?: string; name?: string } = {}): Arg<Given<S, P, string>> {
  return anyParamArg(source, param, shown) as never;
}

export function anyParamArg(source: ParamSource, param: string, shown: { description?: string; name?: string } = {}): Arg<string | undefined> {
  const spec = catalogParam(source, param);
  return bound(source, param, spec, Args.string({ description: spec.description, ...requiredIf(spec), ...shown })) as never;
}
