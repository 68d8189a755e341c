import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';
import { hasControlChars } from '@svc/common';

/**
 * For free text that other users' terminals show (device names, system information): refuses
 * control and bidirectional formatting characters, which could rewrite what those terminals
 * display. Non-strings are left to `@IsString`.
 */
export function NoControlChars(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'noControlChars',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !hasControlChars(value),
        defaultMessage: buildMessage((each) => `${each}$property must not contain control or bidirectional formatting characters`, options),
      },
    },
    options,
  );
}
