import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { InvalidInputError } from '@svc/common';

/**
 * Keys Nest's pipe deletes without a word before validating. JSON.parse makes `__proto__` an
 * ordinary own key (it pollutes nothing), so it is still visible here and refused like any other
 * unknown field instead of vanishing.
 */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A body full of unknown keys would otherwise get an answer as large as itself. */
const MAX_MESSAGES = 10;

/** Strict input: unknown fields, missing fields and wrong types are all a 400 naming the field. */
export function strictValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new InvalidInputError(summarize(describe(errors))),
  });
}

class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const path = prototypeKeyPath(value);
      if (path !== undefined) throw new InvalidInputError(`unknown field ${path}`);
    }
    return super.transform(value, metadata);
  }
}

/** The path of the first prototype key at any depth (bodies are at most `maxJsonDepth` deep). */
export function prototypeKeyPath(value: unknown): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, prefix] = next;
    if (typeof node !== 'object' || node === null) continue;
    for (const key of Object.keys(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (PROTOTYPE_KEYS.has(key)) return path;
      pending.push([(node as Record<string, unknown>)[key], path]);
    }
  }
  return undefined;
}

export function summarize(messages: string[]): string {
  if (messages.length <= MAX_MESSAGES) return messages.join('; ');
  return [...messages.slice(0, MAX_MESSAGES), `and ${messages.length - MAX_MESSAGES} more`].join('; ');
}

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.includes('should not exist') ? `unknown field ${path}` : message.replace(error.property, path),
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}
