import { isIP } from 'node:net';

/**
 * Declarative description of an environment variable. The server's and the clients' tables are
 * built from these, parsed once at start-up, and rendered into docs/configuration.md.
 */
export interface VariableSpec<T> {
  name: string;
  type: string;
  /** Human-readable default shown in the docs. */
  defaultText: string;
  description: string;
  /** Parses the raw value (undefined when unset); throws an Error whose message explains the fault. */
  parse(raw: string | undefined): T;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;
type Parsed<S> = { [K in keyof S]: S[K] extends VariableSpec<infer T> ? T : never };

/** Parses every variable of a table, collecting all problems before failing. */
export function parseVariables<S extends Record<string, VariableSpec<unknown>>>(specs: S, env: Env): Parsed<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, spec] of Object.entries(specs)) {
    const raw = env[spec.name];
    try {
      out[key] = spec.parse(raw === '' ? undefined : raw);
    } catch (err) {
      problems.push(`${spec.name}: ${(err as Error).message}${raw === undefined ? '' : ` (got "${redact(spec, raw)}")`}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as Parsed<S>;
}

const SECRET_NAMES = /KEY|PASSWORD|SECRET|TOKEN/;
function redact(spec: VariableSpec<unknown>, raw: string): string {
  if (SECRET_NAMES.test(spec.name)) return '<redacted>';
  return raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
}

/** A variable with a default: unset gives the default, anything else goes through `convert`. */
function withDefault<T>(name: string, type: string, description: string, dflt: T, convert: (raw: string) => T): VariableSpec<T> {
  return { name, type, defaultText: `\`${dflt}\``, description, parse: (raw) => (raw === undefined ? dflt : convert(raw)) };
}

export const v = {
  string(name: string, description: string, dflt?: string): VariableSpec<string | undefined> {
    return { name, type: 'string', defaultText: dflt === undefined ? 'none' : `\`${dflt}\``, description, parse: (raw) => raw ?? dflt };
  },
  port(name: string, description: string, dflt: number): VariableSpec<number> {
    return withDefault(name, 'port (0-65535)', description, dflt, (raw) => {
      if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) throw new Error('must be a port number between 0 and 65535');
      return Number(raw);
    });
  },
  integer(name: string, description: string, dflt: number, min: number, max: number): VariableSpec<number> {
    return withDefault(name, `integer (${min}-${max})`, description, dflt, (raw) => {
      if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`must be a whole number between ${min} and ${max}`);
      return Number(raw);
    });
  },
  boolean(name: string, description: string, dflt: boolean): VariableSpec<boolean> {
    return withDefault(name, 'boolean', description, dflt, (raw) => {
      const value = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(value)) return true;
      if (['false', '0', 'no', 'off'].includes(value)) return false;
      throw new Error('must be true or false (also accepted: 1/0, yes/no, on/off)');
    });
  },
  oneOf<const T extends string>(name: string, description: string, values: readonly T[], dflt: T): VariableSpec<T> {
    return withDefault(name, `one of ${values.map((x) => `\`${x}\``).join(', ')}`, description, dflt, (raw) => {
      const value = raw.trim().toLowerCase();
      if (!(values as readonly string[]).includes(value)) throw new Error(`must be one of ${values.join(', ')}`);
      return value as T;
    });
  },
  /** A string that must match a pattern, e.g. a database name. */
  matching(name: string, description: string, dflt: string, pattern: RegExp, what: string): VariableSpec<string> {
    return withDefault(name, 'string', description, dflt, (raw) => {
      if (!pattern.test(raw)) throw new Error(`must be ${what}`);
      return raw;
    });
  },
  /** A host name or IP address, without scheme, port or path. */
  host(name: string, description: string, dflt: string): VariableSpec<string> {
    const hostname = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
    return withDefault(name, 'host name or IP address', description, dflt, (raw) => {
      const value = raw.trim();
      if (!hostname.test(value) && isIP(value) === 0) throw new Error('must be a host name or IP address, without scheme, port or path');
      return value;
    });
  },
  list(name: string, description: string, itemCheck: (item: string) => boolean, itemWhat: string): VariableSpec<string[]> {
    return {
      name,
      type: 'comma-separated list',
      defaultText: 'empty',
      description,
      parse(raw) {
        if (raw === undefined) return [];
        // Checked as written, then lower-cased: lower-casing first would fold look-alikes such as
        // the Kelvin sign into ASCII letters before the (ASCII-only) check could refuse them.
        const items = raw.split(',').map((s) => s.trim());
        const bad = items.filter((item) => item === '' || !itemCheck(item));
        if (bad.length > 0) throw new Error(`every item must be ${itemWhat}; bad: ${bad.map((b) => JSON.stringify(b)).join(', ')}`);
        return items.map((item) => item.toLowerCase());
      },
    };
  },
  url(name: string, description: string, defaultText: string, schemes: readonly string[]): VariableSpec<string | undefined> {
    return {
      name,
      type: `URL (${schemes.join(', ')})`,
      defaultText,
      description,
      parse(raw) {
        if (raw === undefined) return undefined;
        let url: URL;
        try {
          url = new URL(raw);
        } catch {
          throw new Error('must be an absolute URL');
        }
        if (!schemes.includes(url.protocol.replace(/:$/, ''))) throw new Error(`must use one of the schemes ${schemes.join(', ')}`);
        return raw;
      },
    };
  },
};
