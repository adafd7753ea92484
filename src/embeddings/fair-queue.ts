import type { EmbedKind } from './types.js';

/** One caller's waiting items, consumed from `head` (shift() per item would be quadratic on a long queue). */
interface Lane<T> {
  items: T[];
  head: number;
}

export interface FairTakeOptions<T> {
  /** Most items in one batch. */
  maxItems: number;
  /**
   * Most work in one batch, counted as items x the longest item (a model pads a batch to its longest text). The
   * first item always goes, however long, so that nothing waits forever.
   */
  maxPaddedLength: number;
  length(item: T): number;
  /** Items to drop instead of sending (their call already failed). */
  skip(item: T): boolean;
}

/**
 * The embedding queue, fair between callers (API keys): queries go before documents (a recall waits on its query,
 * a store on its document, but a bulk import must not hold up anyone's recall), and within each kind the callers
 * take turns, one text each. Batches are bounded by padded length as well as by count, so one caller's 16,000
 * character texts go a few at a time while the next caller's short query is taken in the very next batch: one key's
 * 24 long recalls used to fill the batches in arrival order and stall every other tenant for 11 s.
 */
export class FairQueue<T> {
  /** Per kind, the callers with waiting items, in turn order (a Map keeps insertion order). */
  readonly #kinds: Record<EmbedKind, Map<string, Lane<T>>> = { query: new Map(), document: new Map() };
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(caller: string, kind: EmbedKind, item: T): void {
    const lanes = this.#kinds[kind];
    const lane = lanes.get(caller);
    this.#size += 1;
    if (lane) {
      lane.items.push(item);
      return;
    }
    // A caller with nothing waiting goes first (as fq_codel treats a new flow): a tenant sending one recall at a
    // time then waits only for the batch in the worker, not behind another tenant's backlog as well.
    const rest = [...lanes];
    lanes.clear();
    lanes.set(caller, { items: [item], head: 0 });
    for (const [key, value] of rest) lanes.set(key, value);
  }

  /** The next batch: queries first, callers in turn, within the bounds of `options`. */
  take(options: FairTakeOptions<T>): T[] {
    const batch: T[] = [];
    let longest = 0;
    for (const kind of ['query', 'document'] as const) {
      const lanes = this.#kinds[kind];
      while (batch.length < options.maxItems && lanes.size > 0) {
        const [caller, lane] = lanes.entries().next().value as [string, Lane<T>];
        const item = lane.items[lane.head];
        if (item === undefined) {
          lanes.delete(caller);
          continue;
        }
        if (options.skip(item)) {
          this.#advance(lanes, caller, lane, false);
          continue;
        }
        const padded = Math.max(longest, options.length(item)) * (batch.length + 1);
        if (batch.length > 0 && padded > options.maxPaddedLength) return batch;
        longest = Math.max(longest, options.length(item));
        batch.push(item);
        // The caller goes to the back of the line: the next text comes from the next caller.
        this.#advance(lanes, caller, lane, true);
      }
    }
    return batch;
  }

  /** Empties the queue, returning everything that was waiting. */
  drain(): T[] {
    const all: T[] = [];
    for (const lanes of Object.values(this.#kinds)) {
      for (const lane of lanes.values()) all.push(...lane.items.slice(lane.head));
      lanes.clear();
    }
    this.#size = 0;
    return all;
  }

  /** Past the lane's head item; `rotate` sends the caller to the back of the line (it was served). */
  #advance(lanes: Map<string, Lane<T>>, caller: string, lane: Lane<T>, rotate: boolean): void {
    lane.head += 1;
    this.#size -= 1;
    if (lane.head >= lane.items.length) {
      lanes.delete(caller);
      return;
    }
    // Drop what was consumed now and then, so that a caller that is never idle does not grow its lane without end.
    if (lane.head >= 1024 && lane.head * 2 >= lane.items.length) {
      lane.items = lane.items.slice(lane.head);
      lane.head = 0;
    }
    if (rotate) {
      lanes.delete(caller);
      lanes.set(caller, lane);
    }
  }
}
