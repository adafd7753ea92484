import type { Response } from 'express';
import type { Caller } from '../core/types.js';

/** What middleware leaves for later handlers on `res.locals`, typed in one place. */
export interface RequestLocals {
  requestId: string;
  caller?: Caller;
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
