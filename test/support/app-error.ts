import { AppError } from '../../server/errors.js';

/** The AppError a call rejects with; any other outcome fails the test. */
export async function appError(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
