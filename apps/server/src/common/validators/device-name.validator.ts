import { ValidateBy, ValidationOptions } from 'class-validator';
import { deviceNameProblem } from '@svc/common';

/** A device display name by the one rule of `deviceNameProblem` (length, no control characters, no outer white space). */
export function DeviceName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'deviceName',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && deviceNameProblem(value) === null,
        defaultMessage: (args) => (typeof args?.value === 'string' ? `${args.property}: ${deviceNameProblem(args.value)}` : `${args?.property} must be a string`),
      },
    },
    options,
  );
}
