/**
 * Words a JSON Schema failure of DEPLOY_REQUEST_SCHEMA for people, as one problem at a request
 * path: `jobs[0].steps[1].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)`. The CLI (which
 * adds the file and line) and the server (which answers 400) both use it. The `description` texts
 * of the schema are written to end these messages.
 *
 * No validator is imported here: SchemaError names only what is read from an error, and ajv's
 * ErrorObject (compiled with `verbose: true`, for `data` and `parentSchema`) fits it.
 */
import { escapeControls } from '../control-chars';
import type { DeployPath, DeployProblem } from './request-checks';

/** What is read from a validator's error (the shape of ajv's ErrorObject). */
export interface SchemaError {
  /** JSON Pointer of the failing value: `/jobs/0/steps/1/timeout`. */
  instancePath: string;
  keyword: string;
  params: Readonly<Record<string, unknown>>;
  /** The failing value (ajv: only with `verbose`). */
  data?: unknown;
  /** The schema holding the failing keyword (ajv: only with `verbose`); other keywords are not read. */
  parentSchema?: { readonly [keyword: string]: unknown; description?: string; properties?: Readonly<Record<string, unknown>> };
  /** Set when a property name failed `propertyNames`. */
  propertyName?: string;
  message?: string;
}

export interface DescribeSchemaErrorOptions {
  /**
   * The words for JSON types in "must be …" (`{ object: 'a mapping' }`); a type not listed is
   * named as the schema does (`must be object`).
   */
  typeNames?: Readonly<Record<string, string>>;
}

/** How long a value quoted in a message may be, before it is cut with `…`. */
export const MAX_SHOWN_CHARS = 60;

/** A value as quoted in an error message: JSON, shortened, control characters escaped; lists and mappings by their kind. */
export function showValue(value: unknown): string {
  let text: string;
  if (value === undefined) text = 'nothing';
  else if (Array.isArray(value)) text = 'a list';
  else if (value !== null && typeof value === 'object') text = 'a mapping';
  else text = JSON.stringify(value) ?? String(value);
  if (text.length > MAX_SHOWN_CHARS) text = `${text.slice(0, MAX_SHOWN_CHARS)}…`;
  return escapeControls(text);
}

/** `/jobs/0/a~1b` → `['jobs', 0, 'a/b']`. */
export function schemaErrorPath(error: Pick<SchemaError, 'instancePath'>): DeployPath {
  if (error.instancePath === '') return [];
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

/**
 * The error to report of those a failed validation answered. Ajv reports the failures of an
 * `if/then` or `propertyNames` before the keyword itself, and stops (allErrors off) at the first
 * failing keyword: the most telling error is the last one, or the one just before it for these two.
 */
export function mostTellingSchemaError<E extends Pick<SchemaError, 'keyword'>>(errors: readonly E[]): E {
  if (errors.length === 0) throw new Error('mostTellingSchemaError: no errors');
  const last = errors[errors.length - 1];
  if ((last.keyword === 'if' || last.keyword === 'propertyNames') && errors.length > 1) return errors[errors.length - 2];
  return last;
}

/** The problem `error` states, at its request path (`['jobs', 0, 'steps', 1, 'timeout']`). */
export function describeSchemaError(error: SchemaError, options: DescribeSchemaErrorOptions = {}): DeployProblem {
  const path = schemaErrorPath(error);
  const description = error.parentSchema?.description;
  const shown = showValue(error.data);
  if (error.propertyName !== undefined) {
    return { path: [...path, error.propertyName], message: `${showValue(error.propertyName)} is not ${description ?? 'an allowed name'}` };
  }
  switch (error.keyword) {
    case 'required':
      return { path: [...path, String(error.params.missingProperty)], message: 'required field missing' };
    case 'additionalProperties': {
      const known = Object.keys(error.parentSchema?.properties ?? {});
      return { path: [...path, String(error.params.additionalProperty)], message: `unknown field${known.length ? ` (expected one of: ${known.join(', ')})` : ''}` };
    }
    case 'type': {
      if (description) return { path, message: `${shown} is not ${description}` };
      const type = String(error.params.type);
      return { path, message: `must be ${options.typeNames?.[type] ?? type}, not ${shown}` };
    }
    case 'enum':
      return { path, message: `${shown} is not one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'anyOf':
      return { path, message: description ? `must be ${description}` : 'matches none of the allowed forms' };
    case 'minItems':
    case 'minProperties':
      return { path, message: description ? `must have ${description}` : (error.message ?? 'too few entries') };
    default:
      if (description) return { path, message: `${shown} is not ${description}` };
      return { path, message: `${error.message ?? 'is not valid'}${error.data === undefined || typeof error.data === 'object' ? '' : `, not ${shown}`}` };
  }
}
