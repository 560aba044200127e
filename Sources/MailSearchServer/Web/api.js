// The JSON API under /api: one fetch wrapper that adds the access token, turns the API's
// {error, hint} answers into ApiError, and asks for a token when the server answers 401.

const TOKEN_KEY = 'mailsearch.token';
const SESSION_KEY = 'mailsearch.session';  // the app lock's session (Settings → App lock)

class ApiError extends Error {
  constructor(status, message, hint) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.hint = hint || '';
  }
}

export const isAbort = (error) => error?.name === 'AbortError';

let askForToken = async () => { throw new ApiError(401, 'An access token is needed'); };
let tokenRequest = null;
let askForPasscode = async () => { throw new ApiError(423, 'MailSearch is locked'); };
let passcodeRequest = null;

/** `ask(rejected)` shows the lock screen and resolves once a session is stored (setSession). */
export function setPasscodePrompt(ask) {
  askForPasscode = ask;
}

export function setSession(session) {
  if (session) sessionStorage.setItem(SESSION_KEY, session);
  else sessionStorage.removeItem(SESSION_KEY);
}

// Requests that hit the lock together share one prompt.
function unlocked() {
  passcodeRequest ??= askForPasscode().finally(() => { passcodeRequest = null; });
  return passcodeRequest;
}

/** `ask(rejected)` shows the token form and resolves with the token typed (rejected: the stored one failed). */
export function setTokenPrompt(ask) {
  askForToken = ask;
}

function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

// Requests that hit 401 together share one prompt.
function newToken(rejected) {
  tokenRequest ??= askForToken(rejected)
    .then((token) => sessionStorage.setItem(TOKEN_KEY, token))
    .finally(() => { tokenRequest = null; });
  return tokenRequest;
}

async function send(path, { method = 'GET', body, signal, accept = 'application/json' } = {}) {
  for (;;) {
    const token = storedToken();
    const session = sessionStorage.getItem(SESSION_KEY);
    const headers = { Accept: accept };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (session) headers['X-MailSearch-Session'] = session;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method, headers, signal, credentials: 'same-origin', cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new ApiError(0, 'MailSearch could not be reached', 'Check that `mailsearch serve` is still running, then try again.');
    }
    if (response.status === 423 && (await response.clone().json().catch(() => null))?.field === 'passcode') {
      // The app lock: the passcode opens a session, then the request goes again.
      if (sessionStorage.getItem(SESSION_KEY) === session) await unlocked();
      signal?.throwIfAborted();
      continue;
    }
    if (response.status !== 401) return response;
    // Another request may already have stored a new token while this one was in flight.
    if (storedToken() === token) await newToken(Boolean(token));
    signal?.throwIfAborted();
  }
}

async function failure(response) {
  let message = `The server answered ${response.status} ${response.statusText}`.trim();
  let hint = '';
  let body = null;
  try {
    body = await response.json();
    if (body?.error) message = capitalizeFirst(body.error);
    if (body?.hint) hint = capitalizeFirst(body.hint);
  } catch {
    // Not JSON (a proxy's page, say): keep the status line.
  }
  const error = new ApiError(response.status, message, hint);
  // The whole answer, for callers that read more than the message (the accounts form's check).
  error.body = body;
  return error;
}

const capitalizeFirst = (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1);

export async function getJSON(path, options = {}) {
  const response = await send(path, options);
  if (!response.ok) throw await failure(response);
  return response.json();
}

export async function sendJSON(method, path, body) {
  const response = await send(path, { method, body });
  if (!response.ok) throw await failure(response);
  const type = response.headers.get('Content-Type') || '';
  return type.includes('json') ? response.json() : null;
}

/** Requests need headers a plain link cannot send (the token, or the app lock's session): downloads go through `download`. */
export const needsHeaders = () => Boolean(storedToken() || sessionStorage.getItem(SESSION_KEY));

/** A file's bytes as the body (its own Content-Type), for an attachment upload; answers the JSON. */
export async function uploadFile(path, file) {
  for (;;) {
    const token = storedToken();
    const headers = { Accept: 'application/json', 'Content-Type': file.type || 'application/octet-stream' };
    if (token) headers.Authorization = `Bearer ${token}`;
    let response;
    try {
      response = await fetch(path, { method: 'POST', headers, body: file, credentials: 'same-origin', cache: 'no-store' });
    } catch (error) {
      throw new ApiError(0, 'MailSearch could not be reached', 'Check that `mailsearch serve` is still running, then try again.');
    }
    if (response.status === 401 && storedToken() === token) { await newToken(Boolean(token)); continue; }
    if (!response.ok) throw await failure(response);
    return response.json();
  }
}

/** A download that needs the token header (a plain link cannot send it): fetched, then saved. */
export async function download(path, filename) {
  const response = await send(path, { accept: '*/*' });
  if (!response.ok) throw await failure(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename || '';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function searchURL({ q, scope, mode, cursor, limit = 20 }) {
  const params = new URLSearchParams({ q, limit: String(limit), mode, record: '0' });
  if (scope && scope !== 'all') params.set('scope', scope);
  if (cursor) params.set('cursor', cursor);
  return `/api/search?${params}`;
}
