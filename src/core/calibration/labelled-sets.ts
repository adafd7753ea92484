/**
 * The labelled sets `agent-memory calibrate` fits a model's score map from. They ship inside the package
 * (`labelled-sets.json` beside this file, packed from the evaluation data by tools/calibration/pack-sets.ts):
 * English facts and dialogue, facts in each language the evaluation suite has, and questions no personal memory
 * answers. Compact on disk: a memory is [userId, id, text, createdAt], a question [userId, query, gold ids, 1 when
 * nothing answers it].
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const packedSchema = z.object({
  version: z.literal(1),
  offTopic: z.array(z.string()),
  sets: z.array(
    z.object({
      name: z.string().min(1),
      /** ISO 639-1 code of the set's questions and memories. */
      language: z.string().min(2),
      exhaustive: z.boolean(),
      memories: z.array(z.tuple([z.string(), z.string(), z.string(), z.string()])),
      queries: z.array(z.tuple([z.string(), z.string(), z.array(z.string()), z.union([z.literal(0), z.literal(1)])])),
    }),
  ),
});

export type PackedLabelledSets = z.infer<typeof packedSchema>;

export interface LabelledMemory {
  userId: string;
  id: string;
  text: string;
  createdAt: string;
}

export interface LabelledQuestion {
  userId: string;
  query: string;
  /** The ids of the memories that answer it (empty: nothing does, or the set does not say). */
  gold: string[];
  /** Labelled as answered by nothing at all: recall should return nothing for it. */
  unanswerable: boolean;
}

export interface LabelledSet {
  name: string;
  language: string;
  /** The gold lists every right memory (the share of returned that is right is measurable). */
  exhaustive: boolean;
  memories: LabelledMemory[];
  queries: LabelledQuestion[];
}

export interface CalibrationData {
  sets: LabelledSet[];
  /** Questions no personal memory answers (general knowledge, how-to). */
  offTopic: string[];
}

export function unpackLabelledSets(packed: unknown): CalibrationData {
  const data = packedSchema.parse(packed);
  return {
    offTopic: data.offTopic,
    sets: data.sets.map((s) => ({
      name: s.name,
      language: s.language,
      exhaustive: s.exhaustive,
      memories: s.memories.map(([userId, id, text, createdAt]) => ({ userId, id, text, createdAt })),
      queries: s.queries.map(([userId, query, gold, unanswerable]) => ({ userId, query, gold, unanswerable: unanswerable === 1 })),
    })),
  };
}

let shipped: CalibrationData | undefined;

/** The sets that ship with the package (read once). */
export function shippedLabelledSets(): CalibrationData {
  shipped ??= unpackLabelledSets(JSON.parse(readFileSync(new URL('./labelled-sets.json', import.meta.url), 'utf8')));
  return shipped;
}

/** The shipped sets without the named ones: an evaluation never calibrates on the set it measures. */
export function withoutSets(data: CalibrationData, names: readonly string[]): CalibrationData {
  return { offTopic: data.offTopic, sets: data.sets.filter((s) => !names.includes(s.name)) };
}
