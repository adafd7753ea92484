import type { z } from 'zod';
import { MemoryError } from '../core/errors.js';
import { parseInput } from '../core/validation.js';
import { MemoryValidationError } from './errors.js';

/**
 * Parses with a core schema before anything is sent. `parseInput` is what the server runs (same `issuesToDetails`,
 * same messages), so a caller sees exactly the problems the server would have reported, minus the round trip.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  try {
    return parseInput(schema, input);
  } catch (error) {
    if (error instanceof MemoryError) throw new MemoryValidationError(error.message, error.details ?? []);
    throw error;
  }
}
