import { LIMITS } from './limits.js';

/**
 * One top-level metadata entry as the stores index it for filters: key and value each as JSON text, so that a
 * string "1" and the number 1 stay apart, and numbers compare as JavaScript prints them (1.0 and 1 are one value).
 */
export interface MetadataField {
  key: string;
  value: string;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** The field of one key and value, or undefined when a filter can never name it (not a scalar, or too long). */
export function metadataField(key: string, value: unknown): MetadataField | undefined {
  if (!isScalar(value)) return undefined;
  const field = { key: JSON.stringify(key), value: JSON.stringify(value) };
  if (field.key.length > LIMITS.metadataFieldMaxChars || field.value.length > LIMITS.metadataFieldMaxChars) return undefined;
  return field;
}

/** The entries of a memory's metadata that a filter can match: top-level scalars of bounded length. */
export function metadataFields(metadata: Readonly<Record<string, unknown>>): MetadataField[] {
  const fields: MetadataField[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    const field = metadataField(key, value);
    if (field) fields.push(field);
  }
  return fields;
}
