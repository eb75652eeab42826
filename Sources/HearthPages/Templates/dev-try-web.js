// Hearth's /__dev/try/web page (--dev): the Firebase JS SDK's signInWithPopup, step by step, in Hearth's own code.
// 1. Open the auth handler in a popup with the SDK's query (authType=signInViaPopup, this page as redirectUrl, a
//    10-digit eventId, providerId, customParameters, scopes).
// 2. Hearth's result page in the popup posts {hearthAuthEvent, appOrigin} to this page (its same-origin opener).
// 3. POST accounts:signInWithIdp with requestUri = event.urlResponse and sessionId = event.sessionId, as the SDK does.
// Everything shown is set with textContent; no token is shown whole.
(() => {
  'use strict';
  const root = document.getElementById('try-web');
  if (!root) return;
  const config = root.dataset;
  const byId = (id) => document.getElementById(id);
  const go = byId('try-web-go');
  const status = byId('try-web-status');
  const errorText = byId('try-web-error');
  const result = byId('try-web-result');
  const outcome = byId('try-web-outcome');
  const providerField = byId('try-web-provider');
  const customField = byId('try-web-custom');
  const scopesField = byId('try-web-scopes');
  let pending = null;

  const say = (text) => { status.textContent = text; };
  const tone = (name) => {
    root.classList.remove('info', 'success', 'warning', 'error');
    root.classList.add(name);
  };
  const fail = (text) => {
    errorText.textContent = text;
    errorText.hidden = false;
    tone('error');
    say('');
    console.error('[Hearth /__dev/try/web] ' + text);
  };
  const reset = () => {
    errorText.hidden = true;
    errorText.textContent = '';
    result.hidden = true;
    result.replaceChildren();
    outcome.hidden = true;
    outcome.textContent = '';
    tone('info');
  };
  const show = (heading, facts, name) => {
    tone(name);
    say('');
    outcome.textContent = heading;
    outcome.hidden = false;
    const rows = [];
    for (const [label, value] of facts) {
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      detail.textContent = value === undefined || value === null || value === '' ? '-' : String(value);
      rows.push(term, detail);
    }
    result.replaceChildren(...rows);
    result.hidden = false;
  };
  const mask = (token) => (typeof token === 'string' && token.length > 12 ? `${token.slice(0, 8)}…(${token.length} characters)` : '-');
  const claimsOf = (token) => {
    try {
      const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      return JSON.parse(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), '=')));
    } catch {
      return null;
    }
  };

  if (location.origin !== config.origin) {
    fail(`Open this page at ${config.origin}/__dev/try/web: the sign-in's result comes back to Hearth's public URL, and only a page of that origin receives it.`);
    return;
  }

  // 10 random digits, as the SDK's _generateEventId.
  const newEventId = () => Array.from(crypto.getRandomValues(new Uint8Array(10)), (byte) => String(byte % 10)).join('');

  const end = () => {
    if (!pending) return;
    clearInterval(pending.timer);
    pending = null;
    go.disabled = false;
  };

  // The SDK polls popup.closed and gives up (auth/popup-closed-by-user) a while after it reads true.
  const watch = () => {
    if (!pending || !pending.popup.closed) return;
    if (!pending.closedAt) {
      pending.closedAt = Date.now();
      return;
    }
    if (Date.now() - pending.closedAt < 1500) return;
    end();
    fail('The popup closed without a result (a web app gets auth/popup-closed-by-user). If you did not close it, a page in the popup sent a Cross-Origin-Opener-Policy header, which severs the popup from this page (docs/web.md).');
  };

  const start = () => {
    reset();
    if (pending) {
      try { pending.popup.close(); } catch { /* already gone */ }
      end();
    }
    const providerId = providerField.value;
    const eventId = newEventId();
    const query = new URLSearchParams();
    query.set('apiKey', config.apiKey);
    query.set('appName', '[DEFAULT]');
    query.set('authType', 'signInViaPopup');
    query.set('redirectUrl', location.href);
    query.set('v', 'hearth-dev-try');
    query.set('eventId', eventId);
    query.set('providerId', providerId);
    const custom = customField.value.trim();
    if (custom) {
      let parameters = null;
      try { parameters = JSON.parse(custom); } catch { /* refused below */ }
      if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) {
        fail('Custom parameters must be a JSON object, e.g. {"tenant":"organizations"}, or empty.');
        return;
      }
      if (Object.keys(parameters).length > 0) query.set('customParameters', JSON.stringify(parameters));
    }
    const scopes = scopesField.value.split(/[\s,]+/).filter((scope) => scope !== '');
    if (scopes.length > 0) query.set('scopes', scopes.join(','));
    const popup = window.open(`${config.handler}?${query}`, `hearth-try-web-${eventId}`, 'popup=yes,width=500,height=600');
    if (!popup) {
      fail('The browser blocked the popup (a web app gets auth/popup-blocked). Allow popups for this page, then try again.');
      return;
    }
    pending = { popup, eventId, providerId, closedAt: 0, timer: setInterval(watch, 500) };
    go.disabled = true;
    say(`Waiting for ${providerId} in the popup (event ${eventId})…`);
  };

  const complete = async (event, providerId) => {
    say('Completing the sign-in with accounts:signInWithIdp…');
    const body = { requestUri: event.urlResponse, sessionId: event.sessionId, returnSecureToken: true, returnIdpCredential: true };
    if (event.postBody) body.postBody = event.postBody;
    if (event.tenantId) body.tenantId = event.tenantId;
    let response;
    let answer;
    try {
      response = await fetch(config.signIn, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
        credentials: 'omit', referrerPolicy: 'no-referrer',
      });
      answer = await response.json();
    } catch (error) {
      fail(`accounts:signInWithIdp did not answer (${error.message}); a web app gets auth/network-request-failed.`);
      return;
    }
    if (!response.ok || answer.errorMessage) {
      const message = answer?.error?.message ?? answer?.errorMessage ?? `HTTP ${response.status}`;
      fail(`accounts:signInWithIdp refused the sign-in: ${message}`);
      return;
    }
    if (answer.needConfirmation) {
      show(`An account already exists for ${answer.email ?? 'this email'}: no one was signed in.`, [
        ['Provider', answer.providerId ?? providerId],
        ['Email', answer.email],
        ['A web app gets', 'auth/account-exists-with-different-credential'],
        ['To link', `sign in to the existing account, then linkWithCredential(user, OAuthProvider.credentialFromError(error))`],
        ['Pending credential', answer.pendingToken || answer.oauthIdToken || answer.oauthAccessToken ? 'returned to the app (not shown)' : '-'],
      ], 'warning');
      return;
    }
    const claims = claimsOf(answer.idToken ?? '');
    show(`Signed in with ${providerId}. ${answer.isNewUser ? 'A new account was created.' : 'Welcome back.'}`, [
      ['uid', answer.localId],
      ['Email', answer.email],
      ['Email verified', answer.emailVerified ? 'yes' : 'no'],
      ['Name', answer.displayName],
      ['Provider', answer.providerId ?? providerId],
      ['sign_in_provider', claims?.firebase?.sign_in_provider],
      ['ID token', mask(answer.idToken)],
      ['Refresh token', answer.refreshToken ? `issued (${answer.refreshToken.length} characters, not shown)` : '-'],
      ['Provider credential', answer.oauthAccessToken || answer.oauthIdToken ? 'returned to the app (not shown)' : '-'],
    ], 'success');
  };

  // The result page in the popup posts {hearthAuthEvent, appOrigin} to its opener when the opener is this page.
  window.addEventListener('message', (message) => {
    if (message.origin !== location.origin) return;
    const data = message.data;
    if (!data || typeof data !== 'object' || !data.hearthAuthEvent || typeof data.hearthAuthEvent !== 'object') return;
    const event = data.hearthAuthEvent;
    if (!pending || message.source !== pending.popup) {
      console.warn('[Hearth /__dev/try/web] an auth event from a window this page did not open: ignored');
      return;
    }
    if (data.appOrigin !== location.origin || event.eventId !== pending.eventId) {
      console.warn(`[Hearth /__dev/try/web] an auth event for event ${event.eventId} and ${data.appOrigin}: ignored (this sign-in is event ${pending.eventId})`);
      return;
    }
    const { popup, providerId } = pending;
    end();
    try { popup.close(); } catch { /* the result page closes itself */ }
    if (event.error) {
      const code = event.error.code ?? 'auth/internal-error';
      fail(`${providerId} sign-in did not complete: ${code}${event.error.message ? ` — ${event.error.message}` : ''} (a web app gets the code only: the SDK drops the message)`);
      return;
    }
    complete(event, providerId);
  });

  go.addEventListener('click', start);
  go.disabled = false;
  say('Pick a provider and click the button. The popup shows the provider’s page (Hearth’s dev IdP under --dev).');
})();
