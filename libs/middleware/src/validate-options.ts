import { AppError } from '@caravel/errors';

/** Throws CONFIG_INVALID unless `value` is a positive integer. */
export function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new AppError('CONFIG_INVALID', `${name} must be a positive integer, got ${value}`);
  }
}

/** Throws CONFIG_INVALID unless `value` is an integer of zero or more. */
export function requireNonNegativeInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new AppError(
      'CONFIG_INVALID',
      `${name} must be an integer of zero or more, got ${value}`,
    );
  }
}
