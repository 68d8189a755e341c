import type { Response } from 'express';

/** Resolves once a response that refused a write can take more ('drain'), or is gone ('close'). */
export function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
