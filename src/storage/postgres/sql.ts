import type { AppScope } from '../../core/store.js';

/** Numbered query parameters, collected as the SQL text is built: values never enter the text. */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The user (and app) filter of a query on memories. Without an app the condition is left out rather than written
 * as `($2 IS NULL OR app_id = $2)`, so that the planner picks the right index for each form.
 */
export function scopeFilter(alias: string, userId: string, scope: AppScope, params: Params): string {
  const user = `${alias}.user_id = ${params.add(userId)}`;
  return scope.appId === null ? user : `${user} AND ${alias}.app_id = ${params.add(scope.appId)}`;
}
