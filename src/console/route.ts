/**
 * Pages are addressed by the URL's fragment (#/users, #/user/<id>, #/recall), so the static server needs no routes
 * and nothing of the address reaches a server log. The key is never part of it.
 */
export type Route =
  | { page: 'users'; appId: string; pageNo: number }
  /** `q`: a search within the user's memories (recall), instead of the pages of the list. */
  | { page: 'user'; userId: string; appId: string; pageNo: number; q?: string }
  | { page: 'recall'; userId: string; appId: string };

function pageNumber(value: string | null): number {
  const n = Number(value ?? '0');
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const params = new URLSearchParams(search);
  const appId = params.get('app') ?? '';
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'user' && parts[1] !== undefined) {
    let userId: string;
    try {
      userId = decodeURIComponent(parts.slice(1).join('/'));
    } catch {
      return { page: 'users', appId, pageNo: 0 };
    }
    const q = params.get('q') ?? '';
    return { page: 'user', userId, appId, pageNo: pageNumber(params.get('page')), ...(q ? { q } : {}) };
  }
  if (parts[0] === 'recall') return { page: 'recall', userId: params.get('user') ?? '', appId };
  return { page: 'users', appId, pageNo: pageNumber(params.get('page')) };
}

export function href(route: Route): string {
  const params = new URLSearchParams();
  if (route.page === 'recall' && route.userId) params.set('user', route.userId);
  if (route.appId) params.set('app', route.appId);
  if (route.page !== 'recall' && route.pageNo > 0) params.set('page', String(route.pageNo));
  if (route.page === 'user' && route.q) params.set('q', route.q);
  const search = params.toString() ? `?${params.toString()}` : '';
  if (route.page === 'user') return `#/user/${encodeURIComponent(route.userId)}${search}`;
  return `#/${route.page}${search}`;
}
