/**
 * The soak script's short run: mixed traffic from concurrent clients for a few seconds against the real server,
 * with no failed request and the server's memory not running away. The long run stays a script
 * (`node --import tsx tools/soak.ts --seconds 60`).
 */
import { describe, expect, it } from 'vitest';
import { formatReport, runSoak } from '../../tools/soak.js';
import { reportFigures } from './support/figures.js';

describe('soak (short)', () => {
  it('serves mixed traffic from 8 clients with no error, memory bounded, and stops cleanly', async () => {
    const report = await runSoak({ seconds: 6, clients: 8, warmupSeconds: 2, sampleMs: 250 });
    process.stdout.write(`${formatReport(report)}\n`);
    expect(report.errorSamples).toEqual([]);
    expect(report.errors).toBe(0);
    expect(report.serverExitCode).toBe(0);
    expect(report.requests).toBeGreaterThan(20);
    // Every client stores first; on a slow runner a few seconds may not reach every route, but the mix must show.
    expect(report.routes.find((r) => r.route === 'POST /v1/memories')?.requests).toBeGreaterThan(0);
    expect(report.routes.filter((r) => r.requests > 0).length).toBeGreaterThanOrEqual(3);
    // A few seconds cannot show a slow leak (the 60 s script does); they do catch a runaway one.
    expect(report.memory.lateMeanMb - report.memory.earlyMeanMb).toBeLessThan(150);
    reportFigures('soak', {
      seconds: Math.round(report.seconds),
      requests: report.requests,
      perSecond: Math.round(report.perSecond),
      errors: report.errors,
      rssEarlyMb: Math.round(report.memory.earlyMeanMb),
      rssLateMb: Math.round(report.memory.lateMeanMb),
    });
  }, 90_000);
});
