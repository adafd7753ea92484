import type { Response } from 'express';
import type { ConsentRequest } from '../../core/oauth/server.js';
import type { Scope } from '../../core/scopes.js';
import { CONSOLE_CSP, setPageHeaders } from '../console.js';
import { redirectTarget } from '../../core/oauth/redirect-host.js';
import { escapeHtml as e } from './html.js';

const SCOPE_TEXT: Record<Scope, string> = {
  'memory:read': 'Read your memories: recall, list and get them.',
  'memory:write': 'Store new memories, change them and forget them (and read them).',
};

/**
 * The console's policy, except where the form may lead: a browser applies form-action to the redirect that answers
 * the form too, so the client's redirect origin is allowed (and nothing else). No script at all on this page.
 */
function consentCsp(redirectUri: string | undefined): string {
  let target = '';
  if (redirectUri !== undefined) {
    const url = new URL(redirectUri);
    target = url.protocol === 'http:' || url.protocol === 'https:' ? ` ${url.origin}` : ` ${url.protocol}`;
  }
  return CONSOLE_CSP.replace("form-action 'self'", `form-action 'self'${target}`).replace("script-src 'self'", "script-src 'none'");
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <meta name="referrer" content="no-referrer">
  <title>${e(title)} · agent-memory</title>
  <link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/console/console.css">
</head>
<body>
  <header class="bar"><span class="brand">agent-memory <span>authorization</span></span></header>
  <main id="main">
${body}
  </main>
</body>
</html>
`;
}

/** The names of the consent form's fields, shared with the handler that reads them. */
export const CONSENT_FIELDS = { request: 'request', csrf: 'csrf', key: 'api_key', decision: 'decision' } as const;

/** The consent page: who asks, where it goes back to, what it may do; the key field, Allow and Deny. */
export function sendConsentPage(res: Response, request: ConsentRequest, status = 200, notice?: string): void {
  const name = request.client.name ?? 'An unnamed app';
  // The host in ASCII (punycode) form, with a warning for internationalized and mixed-script hosts: a look-alike
  // such as https://clаude.ai (Cyrillic "а") must not read as claude.ai here.
  const target = redirectTarget(request.redirectUri);
  const scopes = request.scopes.map((s) => `<li>${e(SCOPE_TEXT[s])} <code>${e(s)}</code></li>`).join('');
  const body = `    <form class="card signin" method="post" action="/oauth/consent">
      <h1>Allow ${e(name)} to use your memory?</h1>
${notice ? `      <p class="notice" role="alert">${e(notice)}</p>\n` : ''}      <p>It will be able to:</p>
      <ul class="scopes">${scopes}</ul>
      <p>When you answer, you are sent back to <strong class="redirect-host">${e(target.host)}</strong>, at <code class="redirect">${e(target.href)}</code>.</p>
${target.warnings.map((w) => `      <p class="notice redirect-warning" role="alert">${e(w)}</p>\n`).join('')}
      <p class="hint">The app registered itself as <code>${e(request.client.id)}</code>; its name is its own claim, the address above is where your answer goes.</p>
      <label class="field"><span class="label">API key</span>
        <input type="password" name="${CONSENT_FIELDS.key}" autocomplete="off" spellcheck="false" autocapitalize="off" placeholder="amk_…" required autofocus>
      </label>
      <p class="hint">The app will act as this key: the same app binding and rate limit. Revoking the key (<code>agent-memory keys revoke</code>) ends its access at once.</p>
      <input type="hidden" name="${CONSENT_FIELDS.request}" value="${e(request.pendingId)}">
      <input type="hidden" name="${CONSENT_FIELDS.csrf}" value="${e(request.csrf)}">
      <div class="actions">
        <button type="submit" class="quiet" name="${CONSENT_FIELDS.decision}" value="deny" formnovalidate>Deny</button>
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="allow">Allow</button>
      </div>
    </form>`;
  sendPage(res, status, page(`Allow ${name}?`, body), request.redirectUri);
}

/** A failure the page cannot send back to the app (no trusted redirect): said here, with OAuth's error code. */
export function sendErrorPage(res: Response, status: number, code: string, message: string): void {
  const body = `    <section class="card signin">
      <h1>This authorization cannot go on</h1>
      <p class="notice" role="alert">${e(message)}</p>
      <p class="hint">OAuth error: <code class="error-code">${e(code)}</code></p>
    </section>`;
  sendPage(res, status, page('Authorization refused', body), undefined);
}

function sendPage(res: Response, status: number, html: string, redirectUri: string | undefined): void {
  setPageHeaders(res, consentCsp(redirectUri));
  // The page is opened by the app (often in a popup that then reports back to it): keep the opener.
  res.setHeader('Cross-Origin-Opener-Policy', 'unsafe-none');
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(html);
}
