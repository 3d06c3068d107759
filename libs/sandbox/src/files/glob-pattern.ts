import { isAppError } from '@caravel/errors';
import { globToRegExp as compileGlob } from '@caravel/tools';
import { sandboxError } from '../sandbox.errors.js';

/** The tools' glob compiler (`@caravel/tools`), refusing a bad pattern as the sandbox's `invalid_input`. */
export function globToRegExp(pattern: string): RegExp {
  try {
    return compileGlob(pattern);
  } catch (error) {
    if (isAppError(error)) throw sandboxError('invalid_input', error.message);
    throw error;
  }
}
