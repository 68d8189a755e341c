import { ValidationError, ValidationPipe } from '@nestjs/common';
import { InvalidInputError } from '@svc/common';

/** Strict input: unknown fields, missing fields and wrong types are all a 400 naming the field. */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new InvalidInputError(describe(errors).join('; ')),
  });
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
