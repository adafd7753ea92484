import type { Response } from 'express';
import type { MemoryError } from '../core/errors.js';
import type { Caller } from '../core/types.js';

/** What middleware leaves for later handlers on `res.locals`, typed in one place. */
export interface RequestLocals {
  requestId: string;
  caller?: Caller;
  /** The WWW-Authenticate value for a 401 or 403 of this route, when OAuth protects it (oauth/challenge.ts). */
  challenge?: (error: MemoryError) => string | undefined;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}

export function callerOf(res: Response): Caller {
  const caller = locals(res).caller;
  // Routes are mounted behind the authenticate middleware; reaching here without a caller is a wiring bug.
  if (!caller) throw new Error('authenticate middleware did not run');
  return caller;
}
