import type { Api } from '../api.js';
import type { Route } from '../route.js';

/** What a page gets to do its work: the API with the tab's key, and ways to move on. */
export interface ViewContext {
  api: Api;
  /** Opens another page (a new history entry); the message on show stays when `keepStatus` (an action's outcome). */
  go(route: Route, options?: { keepStatus?: boolean }): void;
  /** Draws the current page again, e.g. after a delete. */
  refresh(): void;
}
