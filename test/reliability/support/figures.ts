/**
 * The figures a reliability test establishes (requests, faults, inputs tried, losses), printed as one line each so
 * that a CI log shows what was proved, not only that it passed. Set RELIABILITY_FIGURES=path to also append them
 * as JSON lines to a file.
 */
import { appendFileSync } from 'node:fs';

export function reportFigures(test: string, figures: Record<string, number | string | boolean>): void {
  const line = Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(`[reliability] ${test}: ${line}\n`);
  const file = process.env.RELIABILITY_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ test, ...figures })}\n`);
}
