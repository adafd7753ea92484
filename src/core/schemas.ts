/**
 * The zod schemas are the single source of truth for every input and output: REST parses with them, MCP declares
 * them as tool schemas, the client library validates with them before sending.
 */
import { z } from 'zod';
import { MEMORY_ID_PATTERN, UUID_PATTERN } from './patterns.js';
import { nestingWithin } from './json-depth.js';
import { LIMITS } from './limits.js';

// Control characters (C0, DEL, C1) are never part of an identifier.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** "x is required." for a missing field, "x must be a string." for a wrong type: the same words on every adapter. */
function stringField(name: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required.` : `${name} must be a string.`) };
}
// A UTF-16 surrogate not part of a pair (the `u` flag keeps pairs whole). It has no UTF-8 form: SQLite kept invalid
// bytes that read back as U+FFFD, so a text did not come back as sent and "a\uD800" and "a\uD801" became one user.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = (v: string): boolean => !LONE_SURROGATE.test(v);

/**
 * Identifiers people read (user ids, caller keys) are compared as Unicode text, not as code points: they are
 * normalised to NFC before anything else, so the composed "café" (U+00E9) and the decomposed one ("e" + U+0301) are
 * one user. What would make two ids that look alike, or one that shows as nothing, is refused:
 * - the bidirectional formatting characters (embeddings, overrides, isolates, and the LRM/RLM/ALM marks), which
 *   reorder what a person sees ("admin\u202Enimda" shows as "adminadmin");
 * - an id of only whitespace and invisible characters (zero-width space and joiners, word joiner, BOM, Hangul and
 *   Braille blanks: Unicode's default-ignorable code points and format characters), and the zero-width space, word
 *   joiner and BOM anywhere ("admin\u200B" is not a second "admin"). A zero-width joiner or non-joiner inside a
 *   visible id (an emoji sequence, a Persian word) is kept.
 * Stored ids were made NFC by a migration (SQLite 8, PostgreSQL 7) where that merged no two users.
 */
const BIDI_FORMATTING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const INVISIBLE_ONLY = /^[\s\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]*$/u;
// Invisible characters with no use inside an identifier (unlike the zero-width joiner and non-joiner, which emoji
// sequences and Persian or Indic words need): "admin" and "admin\u200B" would be two users that look the same.
const INVISIBLE_ANYWHERE = /[\u180e\u200b\u2060-\u2064\ufeff]/;

/** The checks every readable identifier gets, after NFC, worded for its field. */
function readableIdentifier(name: string, maxLength: number) {
  return z
    .string(stringField(name))
    .normalize('NFC')
    .min(1, `${name} must not be empty.`)
    .max(maxLength, `${name} must be at most ${maxLength} characters.`)
    .refine((v) => !CONTROL_CHARS.test(v), `${name} must not contain control characters.`)
    .refine(wellFormed, `${name} must be valid Unicode (no unpaired surrogate).`)
    .refine((v) => !BIDI_FORMATTING.test(v), `${name} must not contain bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).`)
    .refine((v) => INVISIBLE_ONLY.test(v) || !INVISIBLE_ANYWHERE.test(v), `${name} must not contain invisible characters (zero-width space U+200B, word joiner U+2060, BOM U+FEFF).`)
    // An empty one is already refused as empty: one message, not two.
    .refine((v) => v.length === 0 || !INVISIBLE_ONLY.test(v), `${name} must contain a visible character (not only whitespace or invisible characters).`);
}

export const userIdSchema = readableIdentifier('userId', LIMITS.userIdMaxLength).describe(
  'Your identifier for the end user whose memories these are (normalised to Unicode NFC).',
);

export const appIdSchema = z
  .string({ error: 'appId must be a string.' })
  .refine(
    (v) => SLUG_PATTERN.test(v) || UUID_PATTERN.test(v),
    'appId must be an app slug (lower-case letters, digits, "-" and "_", 1 to 63 characters) or an app UUID.',
  )
  .describe('Application: an app slug (created on first store) or an app UUID.');

const notBlank = (v: string): boolean => v.trim().length > 0;

export const memoryTextSchema = z
  .string(stringField('text'))
  .max(LIMITS.textMaxLength, `text must be at most ${LIMITS.textMaxLength} characters.`)
  .refine(notBlank, 'text must not be empty or only whitespace.')
  // Every backend must store the text exactly; PostgreSQL's text type cannot hold NUL, so no backend accepts it.
  .refine((v) => !v.includes('\u0000'), 'text must not contain NUL characters.')
  .refine(wellFormed, 'text must be valid Unicode (no unpaired surrogate).')
  .describe('The fact to remember: one short, self-contained statement, stored exactly as sent.');

export const metadataSchema = z
  .record(z.string(), z.unknown(), { error: 'metadata must be a JSON object.' })
  // Checked first, and alone: serializing deeper JSON (a 10 KB `[[[...]]]`) overflowed the stack, a 500.
  .refine((v) => nestingWithin(v, LIMITS.metadataMaxDepth), {
    message: `metadata must be nested at most ${LIMITS.metadataMaxDepth} levels deep.`,
    abort: true,
  })
  .refine((v) => new TextEncoder().encode(JSON.stringify(v)).length <= LIMITS.metadataMaxBytes, {
    message: `metadata must be at most ${LIMITS.metadataMaxBytes} bytes as JSON.`,
  })
  .describe('Free-form JSON object stored with the memory (tags, source, ...).');

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 timestamp with a time zone, normalised to UTC with milliseconds; `check` refuses an instant (a
 * message) or accepts it (undefined). Every timestamp field (createdAt, expiresAt, since, until) is one of these.
 */
export function isoTimestamp(name: string, check: (ms: number) => string | undefined = () => undefined) {
  return z
    .string({ error: `${name} must be an ISO 8601 timestamp string.` })
    .regex(ISO_TIMESTAMP, `${name} must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-22T10:15:30.123Z.`)
    .transform((v, ctx) => {
      const ms = Date.parse(v);
      // Date.parse rolls impossible days over (2024-02-30 becomes March 1st): check the calendar date itself.
      const [year, month, day] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
      const calendar = new Date(Date.UTC(year, month - 1, day));
      const realDay = year >= 1 && calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
      if (Number.isNaN(ms) || !realDay) {
        ctx.addIssue({ code: 'custom', message: `${name} is not a valid date.` });
        return z.NEVER;
      }
      const refused = check(ms);
      if (refused !== undefined) {
        ctx.addIssue({ code: 'custom', message: refused });
        return z.NEVER;
      }
      return new Date(ms).toISOString();
    });
}

/** ISO 8601 with a time zone; normalised to UTC with milliseconds. Not in the future (a minute of skew allowed). */
export const createdAtSchema = isoTimestamp('createdAt', (ms) =>
  ms > Date.now() + LIMITS.createdAtFutureSkewMs ? 'createdAt must not be in the future.' : undefined,
).describe('When the fact was learned (ISO 8601), for importing history. Defaults to now.');

/** An expiry must lie ahead: a memory that would be born expired is a mistake, not a no-op. */
export const expiresAtSchema = isoTimestamp('expiresAt', (ms) =>
  ms <= Date.now() ? 'expiresAt must be in the future.' : undefined,
).describe('When the memory expires (ISO 8601, in the future): from then on no read sees it, and it is purged.');

export const ttlSecondsSchema = z
  .number({ error: `ttlSeconds must be an integer from 1 to ${LIMITS.ttlSecondsMax}.` })
  .int(`ttlSeconds must be an integer from 1 to ${LIMITS.ttlSecondsMax}.`)
  .min(1, `ttlSeconds must be an integer from 1 to ${LIMITS.ttlSecondsMax}.`)
  .max(LIMITS.ttlSecondsMax, `ttlSeconds must be an integer from 1 to ${LIMITS.ttlSecondsMax}.`)
  .describe('Seconds from now until the memory expires; the same as expiresAt = now + ttlSeconds.');

/** Refuses an input naming both expiresAt and ttlSeconds: two expiries for one memory. */
export function oneExpiry(value: { expiresAt?: unknown; ttlSeconds?: unknown }, ctx: z.core.$RefinementCtx): void {
  if (value.expiresAt !== undefined && value.ttlSeconds !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['ttlSeconds'], message: 'Pass expiresAt or ttlSeconds, not both.' });
  }
}

/**
 * A caller's own key for a memory, unique within its user and app (PUT /v1/memories/by-key/{key}). It travels as a
 * URL path segment, so what a URL cannot carry unchanged is refused rather than stored: "/" (a proxy may decode
 * %2F and route elsewhere, or refuse it), "." and ".." (clients resolve them away), and control characters.
 */
export const memoryKeySchema = readableIdentifier('key', LIMITS.memoryKeyMaxLength)
  .refine((v) => !v.includes('/'), 'key must not contain "/".')
  .refine((v) => v !== '.' && v !== '..', 'key must not be "." or "..".')
  .describe(
    `Your own key for the memory, unique within its user and app (1 to ${LIMITS.memoryKeyMaxLength} characters, no "/" ` +
      'and no control characters; normalised to Unicode NFC): storing with a key that exists replaces that memory instead of adding one.',
  );

export const memoryRefSchema = z
  .string({ error: 'A memory id must be a string.' })
  .refine((v) => MEMORY_ID_PATTERN.test(v) || UUID_PATTERN.test(v), {
    message: 'A memory id is "mem_" followed by 12 letters or digits, or a UUID.',
  })
  .describe('A memory id ("mem_..." or the memory UUID).');

const pageSchema = z
  .number({ error: 'page must be an integer >= 0.' })
  .int('page must be an integer >= 0.')
  .min(0, 'page must be an integer >= 0.')
  .max(Number.MAX_SAFE_INTEGER, 'page is too large.');

const pageSizeSchema = z
  .number({ error: `pageSize must be an integer from 1 to ${LIMITS.pageSizeMax}.` })
  .int(`pageSize must be an integer from 1 to ${LIMITS.pageSizeMax}.`)
  .min(1, `pageSize must be an integer from 1 to ${LIMITS.pageSizeMax}.`)
  .max(LIMITS.pageSizeMax, `pageSize must be an integer from 1 to ${LIMITS.pageSizeMax}.`);

const limitSchema = z
  .number({ error: `limit must be an integer from 1 to ${LIMITS.recallLimitMax}.` })
  .int(`limit must be an integer from 1 to ${LIMITS.recallLimitMax}.`)
  .min(1, `limit must be an integer from 1 to ${LIMITS.recallLimitMax}.`)
  .max(LIMITS.recallLimitMax, `limit must be an integer from 1 to ${LIMITS.recallLimitMax}.`);

const minScoreSchema = z
  .number({ error: 'minScore must be a number from 0 to 1.' })
  .min(0, 'minScore must be a number from 0 to 1.')
  .max(1, 'minScore must be a number from 0 to 1.');

// ---- Filters ------------------------------------------------------------------------------------------------

const metadataScalar = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'A metadata filter value must be a string, a number, true, false or null.',
});

/** Top-level metadata keys with the value each must have: all must match, exactly (scalars only). */
export const metadataFilterSchema = z
  .record(z.string(), metadataScalar, { error: 'metadata must be a JSON object of keys and the values they must have.' })
  .refine((v) => Object.keys(v).length >= 1 && Object.keys(v).length <= LIMITS.metadataFilterMaxKeys, {
    message: `metadata must name 1 to ${LIMITS.metadataFilterMaxKeys} keys.`,
  })
  .refine(
    (v) => Object.entries(v).every(([key, value]) => JSON.stringify(key).length <= LIMITS.metadataFieldMaxChars && JSON.stringify(value).length <= LIMITS.metadataFieldMaxChars),
    { message: `A metadata filter key or value must be at most ${LIMITS.metadataFieldMaxChars} characters as JSON.` },
  )
  .describe(
    'Only memories whose metadata has each of these top-level keys with exactly this value (a string, number, ' +
      'boolean or null). In a query string: the object as JSON, e.g. metadata={"topic":"music"}.',
  );

export const filterFields = {
  metadata: metadataFilterSchema.optional(),
  since: isoTimestamp('since').optional().describe('Only memories created at or after this instant (ISO 8601).'),
  until: isoTimestamp('until').optional().describe('Only memories created before this instant (ISO 8601).'),
};

/** since must come before until: an empty window is a mistake, not a question. */
function orderedWindow(value: { since?: string | undefined; until?: string | undefined }, ctx: z.core.$RefinementCtx): void {
  if (value.since !== undefined && value.until !== undefined && value.since >= value.until) {
    ctx.addIssue({ code: 'custom', path: ['until'], message: 'until must be later than since.' });
  }
}

// ---- Inputs -------------------------------------------------------------------------------------------------

/** Field shapes are exported so that MCP tools can reuse them with user/app made optional. */
export const storeFields = {
  userId: userIdSchema,
  text: memoryTextSchema,
  appId: appIdSchema.optional(),
  metadata: metadataSchema.optional(),
  createdAt: createdAtSchema.optional(),
  expiresAt: expiresAtSchema.optional(),
  ttlSeconds: ttlSecondsSchema.optional(),
  key: memoryKeySchema.optional(),
};
export const storeInputSchema = z.strictObject(storeFields).superRefine(oneExpiry);
export type StoreInput = z.input<typeof storeInputSchema>;
export type StoreParams = z.output<typeof storeInputSchema>;

/**
 * PUT /v1/memories/by-key/{key}: a store whose key is in the path. It replaces the memory whole: text, metadata
 * (absent: {}) and expiry (absent: none); createdAt applies only when it creates one.
 */
const { key: _storeKey, ...putFields } = storeFields;
export { putFields };
export const putByKeyInputSchema = z.strictObject(putFields).superRefine(oneExpiry);
export type PutByKeyInput = z.input<typeof putByKeyInputSchema>;

/** GET and DELETE /v1/memories/by-key/{key}: the key's user and app (the app as a store would pick it). */
export const keyRefFields = {
  key: memoryKeySchema,
  userId: userIdSchema,
  appId: appIdSchema.optional().describe('The app the key is in: as for a store, the key\u2019s app or "default" when omitted.'),
};
export const keyRefInputSchema = z.strictObject(keyRefFields);
export type KeyRefInput = z.input<typeof keyRefInputSchema>;

export const updateFields = {
  text: memoryTextSchema.optional().describe('The new text: replaces the old one, and the memory is embedded again.'),
  metadata: metadataSchema.optional().describe('The new metadata: replaces the old object whole (no merge).'),
  expiresAt: expiresAtSchema
    .nullable()
    .optional()
    .describe('A new expiry (ISO 8601, in the future), or null to keep the memory for good.'),
  ttlSeconds: ttlSecondsSchema.optional(),
};

/** An update must change something, and name at most one expiry. */
export function someUpdate(value: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  if (Object.keys(updateFields).every((field) => value[field] === undefined)) {
    ctx.addIssue({ code: 'custom', path: [], message: 'Pass at least one of text, metadata, expiresAt or ttlSeconds.' });
  }
  oneExpiry(value, ctx);
}

export const updateInputSchema = z.strictObject(updateFields).superRefine(someUpdate);
export type UpdateInput = z.input<typeof updateInputSchema>;
export type UpdateParams = z.output<typeof updateInputSchema>;

export const listFields = {
  userId: userIdSchema,
  appId: appIdSchema.optional(),
  page: pageSchema.default(0).describe('Page index, from 0.'),
  pageSize: pageSizeSchema.default(LIMITS.pageSizeDefault).describe(`Items per page, 1 to ${LIMITS.pageSizeMax}.`),
  ...filterFields,
};
export const listInputSchema = z.strictObject(listFields).superRefine(orderedWindow);
export type ListInput = z.input<typeof listInputSchema>;
export type ListParams = z.output<typeof listInputSchema>;

export const recallFields = {
  userId: userIdSchema,
  query: z
    .string(stringField('query'))
    .max(LIMITS.queryMaxLength, `query must be at most ${LIMITS.queryMaxLength} characters.`)
    .refine(notBlank, 'query must not be empty or only whitespace.')
    .refine(wellFormed, 'query must be valid Unicode (no unpaired surrogate).')
    .describe('What you want to know, in natural language (a question or a topic).'),
  appId: appIdSchema.optional(),
  limit: limitSchema.default(LIMITS.recallLimitDefault).describe(`Most memories to return, 1 to ${LIMITS.recallLimitMax}.`),
  minScore: minScoreSchema
    .default(LIMITS.recallMinScoreDefault)
    .describe('Drop memories scoring below this relevance (0 to 1). 0.7 keeps what answers the query.'),
  explain: z
    .boolean({ error: 'explain must be true or false.' })
    .default(false)
    .describe('Also return, per memory, the parts its score was computed from.'),
  ...filterFields,
};
export const recallInputSchema = z.strictObject(recallFields).superRefine(orderedWindow);
export type RecallInput = z.input<typeof recallInputSchema>;
export type RecallParams = z.output<typeof recallInputSchema>;

export const listUsersInputSchema = z.strictObject({
  appId: appIdSchema.optional(),
  page: listFields.page,
  pageSize: listFields.pageSize,
});
export type ListUsersInput = z.input<typeof listUsersInputSchema>;
export type ListUsersParams = z.output<typeof listUsersInputSchema>;

export const forgetAllFields = {
  userId: userIdSchema,
  appId: appIdSchema.optional(),
  ...filterFields,
};
export const forgetAllInputSchema = z.strictObject(forgetAllFields).superRefine(orderedWindow);
export type ForgetAllInput = z.input<typeof forgetAllInputSchema>;
export type ForgetAllParams = z.output<typeof forgetAllInputSchema>;

export { orderedWindow };

export const forgetManyInputSchema = z.strictObject({
  ids: z
    .array(memoryRefSchema, {
      error: (issue) => (issue.input === undefined ? 'ids is required.' : 'ids must be an array of memory ids.'),
    })
    .min(1, 'ids must hold at least one id.')
    .max(LIMITS.batchDeleteMaxIds, `ids must hold at most ${LIMITS.batchDeleteMaxIds} ids.`),
});
export type ForgetManyInput = z.input<typeof forgetManyInputSchema>;

export const idempotencyKeySchema = z
  .string()
  .min(1, 'Idempotency-Key must not be empty.')
  .max(LIMITS.idempotencyKeyMaxLength, `Idempotency-Key must be at most ${LIMITS.idempotencyKeyMaxLength} characters.`)
  .regex(/^[\u0020-\u007e]+$/, 'Idempotency-Key must be printable ASCII.');

// ---- Outputs ------------------------------------------------------------------------------------------------

const timestamp = z.string().describe('ISO 8601 UTC timestamp with milliseconds.');

/** Present (true) only while a memory waits for its vector; absent once it has one, as for nearly every memory. */
const vectorPendingField = z
  .literal(true)
  .optional()
  .describe(
    'Only while the memory has no vector: it was stored (or its text changed) while the embedding endpoint was down. It is found by its words meanwhile, and by its meaning once the service has embedded it (then the field is absent).',
  );

export const storeResultSchema = z.object({
  id: z.string(),
  userId: z.string(),
  appId: z.string().describe('The app slug.'),
  createdAt: timestamp,
  duplicate: z
    .boolean()
    .describe('True when a live memory of this user and app already held this text: it is the one answered, and nothing was stored.'),
  key: z.string().optional().describe('The caller\u2019s key, when the store named one.'),
  updated: z
    .boolean()
    .optional()
    .describe('With a key only: true when a memory with this key existed and was replaced (same id), false when it was created.'),
  vectorPending: vectorPendingField,
});
export type StoreResult = z.infer<typeof storeResultSchema>;

const lifeFields = {
  updatedAt: timestamp.describe('When the text, metadata or expiry last changed; createdAt until then.'),
  expiresAt: timestamp.nullable().describe('When the memory expires, or null if it does not.'),
};

export const listItemSchema = z.object({
  id: z.string(),
  text: z.string(),
  createdAt: timestamp,
  ...lifeFields,
  metadata: z.record(z.string(), z.unknown()),
  appId: z.string().describe('The app slug.'),
  key: z.string().optional().describe('The caller\u2019s own key, for a memory stored with one.'),
  vectorPending: vectorPendingField,
});
export type ListItem = z.infer<typeof listItemSchema>;

/** One memory read by id, or as an update left it. */
export const memorySchema = listItemSchema.extend({ userId: z.string() });
export type MemoryView = z.infer<typeof memorySchema>;

export const listResultSchema = z.object({
  memories: z.array(listItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ListResult = z.infer<typeof listResultSchema>;

export const userSummarySchema = z.object({
  userId: z.string(),
  memoryCount: z.number().int().describe('How many memories the user has in the apps the key can see (or in appId).'),
  newestMemoryAt: timestamp.describe('createdAt of the user\u2019s newest memory there.'),
});
export type UserSummary = z.infer<typeof userSummarySchema>;

export const listUsersResultSchema = z.object({
  users: z.array(userSummarySchema),
  total: z.number().int().describe('How many users have memories there.'),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ListUsersResult = z.infer<typeof listUsersResultSchema>;

/** Why a memory scored what it did (recall with `explain: true`); the ranker's ScoreParts is this shape. */
export const scorePartsSchema = z
  .object({
    cosine: z.number().describe('Cosine similarity of the memory and the query (without its question frame), -1 to 1.'),
    semantic: z.number().describe("The cosine on the embedding model's calibrated scale, 0 to 1."),
    words: z.number().describe("Share of the query's word information the memory contains, 0 to 1."),
    context: z.number().describe('Added by reading the memory with a neighbouring turn of the same conversation.'),
    brevity: z.number().describe('Factor for a memory with almost no content words (1: none).'),
    date: z.number().describe('Added because the memory is of, or names, the day or month the query names.'),
    gap: z.number().describe('Taken off because the best match of the query is much stronger.'),
    missing: z.number().describe("Largest share of the query's word information held by one query word the memory lacks."),
    absent: z.number().describe("Share of the query's word information held by words that no memory contains."),
    answer: z
      .number()
      .optional()
      .describe('For a question asking for a colour, a number, a name, a date or a time ("when is ...", "what day ..."): 1 when the memory (or a turn beside it) holds one, 0 when not (its evidence discounted).'),
    question: z
      .number()
      .optional()
      .describe('Factor for a memory that asks a question and is not a turn of a conversation: a question is not evidence of its answer.'),
    nameMemory: z
      .number()
      .optional()
      .describe('Factor for a memory that only says the user\'s name ("User\'s name is Dorji Wangchuk."), for a message that does not ask a name: it answers nothing else.'),
    otherPerson: z
      .number()
      .optional()
      .describe('Factor for a memory about someone else by name than the person the query names ("Fatima\'s birthday ..." for "When is Musa\'s birthday?").'),
    otherRelative: z
      .number()
      .optional()
      .describe('Factor for a memory about another of the user\'s relatives than the one the query asks about ("My daughter Itzel is 7." for "How old is my mom?").'),
    general: z
      .number()
      .optional()
      .describe('Factor for every memory when an English question asks about the world, not about anyone the memories know ("how high is mount kenya?" over "The user wants to climb Mount Kenya."): the assistant answers it, not a memory.'),
    settles: z
      .number()
      .optional()
      .describe('For a question the message implies (explain.part): the share of the word side the memory earns because it states what the need asks, whatever its words ("Sanna is lactose intolerant." for a dinner).'),
    nameOnly: z
      .number()
      .optional()
      .describe('Factor for a memory that meets a question about someone by name only through the name (none of its other words, nor the kind of answer it asks for, nor its meaning).'),
    selfLift: z
      .number()
      .optional()
      .describe('Factor for a memory about the user in the third person or as a note ("User drives a Toyota.") met by a question in the first person ("what do I drive?"), which the words and the model read further apart than they are.'),
    intent: z
      .string()
      .optional()
      .describe('What an English question plainly asks (age, job, home, vehicle, reading, study, medication, avoid, restriction, wish, languages, music, team, trigger, injury, opening, condition, until, breed, clock, provider, school, rota, commute, span, day, money; comma-separated) that the memory states without the question\'s words: those words count as covered ("Emir is 10." for "How old is Emir?").'),
    raw: z.number().describe("The evidence the model's calibration maps to the score."),
    newer: z.number().optional().describe('Added to rank this memory above an older one that states the same thing.'),
    language: z
      .string()
      .optional()
      .describe("The memory's language as the word side read it (ISO 639-1, 'und' when undetermined)."),
    part: z
      .string()
      .optional()
      .describe(
        'For a message of several parts (sentences or clauses that ask or state something; greetings and small talk set aside): the part whose recall gave this score (the best of the parts).',
      ),
    self: z
      .string()
      .optional()
      .describe(
        "When this score came from reading the query's first person as a note about the user: the part as read (\"what am I allergic to?\" as \"what is user allergic to?\").",
      ),
    corrected: z
      .string()
      .optional()
      .describe(
        'When this score came from reading the query with its typos corrected to words of the memories: the part as read ("what am I alergic to?" as "what am I allergic to?").',
      ),
    agreement: z
      .number()
      .optional()
      .describe('Added because another part of the message found this memory too (parts that agree).'),
    standing: z
      .number()
      .optional()
      .describe(
        'For a message typed as people type it (not one clean question): added for the first memory by its margin over the next, taken off another by its distance below the first (how far a memory stands from the user\'s other memories).',
      ),
    path: z
      .enum(['semantic', 'words'])
      .optional()
      .describe(
        "'semantic' when the embedding model understands both the query's and the memory's language; 'words' when it does not, and the words carry the evidence with their own calibration.",
      ),
    calibration: z
      .enum(['builtin', 'fitted', 'pending', 'failed'])
      .optional()
      .describe(
        "Where the score map comes from: 'builtin' (shipped for this model), 'fitted' (fitted by the service for this model: agent-memory calibrate), 'pending' (being fitted in the background: a conservative map meanwhile), 'failed' (the fit failed: the conservative map stays).",
      ),
  })
  .describe('The parts of the score (explain: true).');

export const recallItemSchema = listItemSchema.extend({
  score: z.number().describe('Relevance to the query, 0 to 1; 0.7 and above answers it.'),
  explain: scorePartsSchema.optional(),
});
export type RecallItem = z.infer<typeof recallItemSchema>;

export const recallResultSchema = z.object({
  memories: z.array(recallItemSchema),
  context: z
    .string()
    .describe('The memories\u2019 texts, one per line as "- [YYYY-MM-DD] <text>" (the date of updatedAt, UTC), or "" when nothing matched.'),
});
export type RecallResult = z.infer<typeof recallResultSchema>;

export const deleteResultSchema = z.object({ deleted: z.number().int() });
export type DeleteResult = z.infer<typeof deleteResultSchema>;
