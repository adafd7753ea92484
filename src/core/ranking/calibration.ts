/**
 * The score's calibration belongs to an embedding model: each model spreads its cosines differently (USE-lite puts
 * unrelated sentences near 0 and paraphrases above 0.6; MiniLM and BGE put everything higher), so the cosine range
 * that counts as evidence and the map from raw evidence to the score are fitted per model by
 * `npm run calibrate` (tools/calibrate.ts) from labelled data, and stored as JSON:
 *
 * - built in, for the models the package knows (`calibrations/<model>.json` beside this file);
 * - beside a transformers.js model's files, `<modelDir>/<org>/<name>/agent-memory-calibration.json`;
 * - or in a file named by `--calibration` / `MEMORY_CALIBRATION`.
 *
 * A model with none is calibrated by the service itself (core/calibration: `agent-memory calibrate`, or in the
 * background when `serve` or `mcp` starts), and the result is stored in the database for every node.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isLanguage, LANGUAGES, type Language } from '../text/languages.js';
import { MAX_STANDING } from './standing.js';

const knot = z.tuple([z.number().finite(), z.number().min(0).max(1)]);

export const modelCalibrationSchema = z
  .object({
    model: z.string().min(1),
    /** Cosine at or below which a memory has no semantic evidence, and at or above which it has full evidence. */
    cosineFloor: z.number().min(-1).max(1),
    cosineCeiling: z.number().min(-1).max(1),
    /** Piecewise-linear map of the raw evidence to the score: (raw, score) knots, both increasing, from (0, 0). */
    knots: z.array(knot).min(2),
    /**
     * The languages the model understands (ISO 639-1), or ["*"] for a multilingual model; default ["en"]. For the
     * others the words carry the evidence and `foreignKnots` map it to the score.
     */
    languages: z.array(z.string().min(1)).min(1).optional(),
    /**
     * For a message typed as people type it: how much a memory's score moves by its standing among the user's
     * other memories (ranking/standing.ts); 0 or absent: not at all.
     */
    standing: z.number().min(0).max(MAX_STANDING).optional(),
    /** The score map of the words-only path (a query or memory in a language the model does not understand). */
    foreignKnots: z.array(knot).min(2).optional(),
    /** What it was fitted on and when, for the reader. */
    fittedOn: z.string().optional(),
    fittedAt: z.string().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.cosineCeiling <= c.cosineFloor) ctx.addIssue({ code: 'custom', message: 'cosineCeiling must exceed cosineFloor', path: ['cosineCeiling'] });
    for (const field of ['knots', 'foreignKnots'] as const) {
      const knots = c[field] ?? [];
      for (let i = 1; i < knots.length; i++) {
        const [x0, y0] = knots[i - 1] as [number, number];
        const [x1, y1] = knots[i] as [number, number];
        if (!(x1 > x0 && y1 >= y0)) ctx.addIssue({ code: 'custom', message: 'knots must increase', path: [field, i] });
      }
    }
    for (const [i, l] of (c.languages ?? []).entries()) {
      if (l !== '*' && !isLanguage(l)) ctx.addIssue({ code: 'custom', message: `unknown language "${l}" (ISO 639-1 codes of ${LANGUAGES.join(', ')}, or "*")`, path: ['languages', i] });
    }
  });

export type ModelCalibration = z.infer<typeof modelCalibrationSchema>;

/** The languages a calibration says its model understands, as the ranker takes them. */
export function modelLanguages(calibration: Pick<ModelCalibration, 'languages'>): 'all' | Language[] {
  const list = calibration.languages ?? ['en'];
  return list.includes('*') ? 'all' : list.filter(isLanguage);
}

/** Calibrations that ship with the package, by model name. */
const BUILT_IN: ReadonlyMap<string, ModelCalibration> = new Map(
  ['use-lite'].map((name) => {
    const url = new URL(`./calibrations/${name}.json`, import.meta.url);
    const c = parseCalibration(readFileSync(url, 'utf8'), url.pathname);
    return [c.model, c];
  }),
);

export const DEFAULT_CALIBRATION = BUILT_IN.get('use-lite') as ModelCalibration;

export function builtInCalibration(model: string): ModelCalibration | undefined {
  return BUILT_IN.get(model);
}

/** Parses a calibration file's text; the error names the file and the first problem. */
export function parseCalibration(json: string, source: string): ModelCalibration {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error(`${source} is not JSON.`);
  }
  const result = modelCalibrationSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`${source} is not a calibration: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  return result.data;
}

/** The file a calibration for a transformers.js model may sit in, beside the model's own files. */
export const CALIBRATION_FILE = 'agent-memory-calibration.json';

export interface ResolvedCalibration {
  calibration: ModelCalibration;
  /** Where it came from, for the log. */
  source: string;
  /** True when the model has none and USE-lite's stands in (scores rank, but 0.7 is not calibrated). */
  fallback: boolean;
}

/**
 * The calibration that belongs to a model: the file beside the model's files (`<modelDir>/<model>/` + CALIBRATION_FILE)
 * when there is one, else the built-in one, else USE-lite's as a documented fallback.
 */
export function resolveCalibration(model: string, modelDir?: string): ResolvedCalibration {
  if (modelDir !== undefined) {
    const url = new URL(`file://${modelDir.replace(/\/?$/, '/')}${model}/${CALIBRATION_FILE}`);
    let text: string | undefined;
    try {
      text = readFileSync(url, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const calibration = parseCalibration(text, url.pathname);
      if (calibration.model !== model) throw new Error(`${url.pathname} is the calibration of "${calibration.model}", not of "${model}".`);
      return { calibration, source: url.pathname, fallback: false };
    }
  }
  const builtIn = builtInCalibration(model);
  if (builtIn) return { calibration: builtIn, source: 'built in', fallback: false };
  // The hash model (tests and CI) has no meaning to calibrate: it keeps use-lite's values, as the tests expect.
  if (model === 'hash') return { calibration: { ...DEFAULT_CALIBRATION, model }, source: 'built in (use-lite\'s, for the hash test model)', fallback: false };
  return { calibration: { ...DEFAULT_CALIBRATION, model, languages: languagesByName(model) }, source: 'fallback (use-lite)', fallback: true };
}

/**
 * The languages of a model without a calibration, from its name: the multilingual sentence encoders say so
 * ("paraphrase-multilingual-MiniLM-L12-v2", "multilingual-e5-small", LaBSE, BGE-M3); others are taken as English.
 */
export function languagesByName(model: string): string[] {
  return /multilingual|labse|bge-m3|xlm|m-?e5|mxbai-embed-large/i.test(model) ? ['*'] : ['en'];
}
