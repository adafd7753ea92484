/**
 * A model without a calibration of its own (neither built in nor beside its files) is calibrated by the service:
 * the calibration stored in the database for the model's name and dimension (every node reads the same one), or,
 * when there is none, one fitted now from the shipped labelled sets (calibrate.ts) and stored there. Until then
 * recall scores by the words alone (the words path, whose map does not depend on the model), so 0.7 keeps its
 * meaning while the model's own evidence is not yet understood.
 */
import type { Embedder, EmbedderInfo } from '../embedder.js';
import type { Logger } from '../logger.js';
import { CalibratedRanker, type CalibrationStatus } from '../ranking/calibrated-ranker.js';
import { modelCalibrationSchema, type ModelCalibration, type ResolvedCalibration } from '../ranking/calibration.js';
import { HybridRanker, paramsFor, type RankerParams } from '../ranking/hybrid-ranker.js';
import type { CalibrationStore } from '../store.js';
import { calibrateModel, type CalibrationRun } from './calibrate.js';
import type { CalibrationData } from './labelled-sets.js';

/** Every text read by its words (no language is the model's), with the fallback's word map. */
export function conservativeParams(calibration: ModelCalibration): RankerParams {
  return paramsFor(calibration, { languages: [] });
}

/** The ranker a runtime starts with: its model's own calibration, or the conservative map pending a fit. */
export function startingRanker(resolved: ResolvedCalibration): CalibratedRanker {
  return resolved.fallback
    ? new CalibratedRanker(new HybridRanker(conservativeParams(resolved.calibration)), 'pending')
    : new CalibratedRanker(new HybridRanker(paramsFor(resolved.calibration)), 'builtin');
}

/** The calibration stored for the model, if there is a valid one of that model. */
export async function storedCalibration(store: CalibrationStore, info: EmbedderInfo): Promise<ModelCalibration | undefined> {
  const raw = await store.getCalibration(info);
  if (raw === undefined || raw === null) return undefined;
  const parsed = modelCalibrationSchema.safeParse(raw);
  return parsed.success && parsed.data.model === info.model ? parsed.data : undefined;
}

/** Fits the model's calibration and stores it for every node. */
export async function fitAndStore(
  embedder: Embedder,
  store: CalibrationStore,
  data: CalibrationData,
  onProgress?: (message: string) => void,
): Promise<CalibrationRun> {
  const info = await embedder.ready();
  const run = await calibrateModel(embedder, data, onProgress === undefined ? {} : { onProgress });
  await store.putCalibration(info, run.calibration, run.calibration.fittedAt ?? new Date().toISOString());
  return run;
}

export interface SelfCalibration {
  embedder: Embedder;
  /** Resolves once the model is loaded and the database accepted it. */
  modelReady: Promise<EmbedderInfo>;
  store: CalibrationStore;
  ranker: CalibratedRanker;
  /** The sets to fit from (the shipped ones; an evaluation leaves out the set it measures). */
  data: () => CalibrationData;
  logger?: Logger | undefined;
  /** True once the runtime is closing: a fit cut short by that is not a failure to report. */
  stopped?: () => boolean;
}

/**
 * For a ranker that is 'pending': uses the stored calibration, or fits one and stores it. Never rejects: a
 * failure leaves the conservative map, marks the ranker 'failed' and is logged. Resolves with the final status.
 */
export async function selfCalibrate(options: SelfCalibration): Promise<CalibrationStatus> {
  const { ranker, logger } = options;
  if (ranker.status !== 'pending') return ranker.status;
  let info: EmbedderInfo;
  try {
    info = await options.modelReady;
  } catch {
    // The model did not load: the runtime reports that; nothing to calibrate.
    return ranker.status;
  }
  try {
    const stored = await storedCalibration(options.store, info);
    if (stored !== undefined) {
      ranker.use(new HybridRanker(paramsFor(stored)), 'fitted');
      logger?.info('score calibration: the one fitted for this model, from the database', { model: info.model, fittedAt: stored.fittedAt });
      return 'fitted';
    }
    logger?.info('score calibration: none for this model yet; fitting one in the background from the shipped labelled sets (recall scores by words meanwhile)', {
      model: info.model,
      dimension: info.dimension,
    });
    const run = await fitAndStore(options.embedder, options.store, options.data());
    ranker.use(new HybridRanker(paramsFor(run.calibration)), 'fitted');
    logger?.info('score calibration fitted and stored', {
      model: info.model,
      texts: run.texts,
      seconds: Math.round(run.ms / 100) / 10,
      languages: run.calibration.languages,
      knots: run.calibration.knots,
    });
    return 'fitted';
  } catch (error) {
    if (options.stopped?.() === true) return ranker.status;
    ranker.mark('failed');
    logger?.warn('score calibration failed: recall keeps scoring by words; run agent-memory calibrate', {
      model: info.model,
      error: error instanceof Error ? error.message : String(error),
    });
    return 'failed';
  }
}
