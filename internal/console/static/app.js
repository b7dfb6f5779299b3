// thumbforge console: what every page shares. Plain JavaScript, no framework. Every string
// that came from the API or the user reaches the page through textContent or an attribute
// setter, never through HTML parsing, so a name like <img src=x onerror=...> stays text.

export const prices = JSON.parse(document.body.dataset.prices || '{}');
export const limits = JSON.parse(document.body.dataset.limits || '{}');

// The secret of this tab: an API key (account pages) or the admin token (/admin), kept in
// sessionStorage only, sent in a header only.
const stores = { key: 'thumbforge.apiKey', admin: 'thumbforge.adminToken' };
let kind = 'key';

// An error answered by the API (or the network), with the v2 body's parts.
export class ApiError extends Error {
  constructor(status, payload) {
    const e = (payload && payload.error) || {};
    super(e.message || `The server answered with status ${status}.`);
    this.status = status;
    this.code = e.code || `HTTP_${status}`;
    this.details = Array.isArray(e.details) ? e.details : [];
    this.requestId = (payload && payload.request_id) || '';
  }
}

const signOutCodes = new Set(['MISSING_API_KEY', 'INVALID_API_KEY_FORMAT', 'INVALID_API_KEY',
  'API_KEY_INACTIVE', 'API_KEY_DELETED', 'INVALID_ADMIN_TOKEN']);

// api calls the public API with this tab's secret and returns the decoded body; a non-2xx
// answer throws an ApiError. A key that stopped working signs the tab out.
export async function api(method, path, payload, opts = {}) {
  const headers = { Accept: 'application/json' };
  const secret = opts.secret ?? sessionStorage.getItem(stores[kind]) ?? '';
  if (kind === 'admin') headers.Authorization = `Bearer ${secret}`;
  else headers['X-Api-Key'] = secret;
  let body;
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(payload);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body, cache: 'no-store', credentials: 'omit', signal: opts.signal });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, { error: { code: 'NETWORK', message: 'The server could not be reached. Check the connection and try again.' } });
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    if (!opts.secret && res.status === 401 && signOutCodes.has(err.code)) signOut(err.message);
    throw err;
  }
  return data;
}

// el builds an element: props set attributes (text -> textContent, on* -> listeners),
// children are nodes or strings (as text).
export function el(tag, props = {}, ...children) {
  const n = tag === 'svg' || props.svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false || k === 'svg') continue;
    if (k === 'text') n.textContent = v;
    else if (k === 'class') n.setAttribute('class', v);
    else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else if (k === 'href' || k === 'src') n.setAttribute(k, safeURL(v));
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    n.append(c instanceof Node ? c : String(c));
  }
  return n;
}

// svg builds an SVG element the same way.
export function svg(tag, props = {}, ...children) {
  return el(tag, { ...props, svg: true }, ...children);
}

// safeURL lets through only links a page may load or open: http(s), same-origin paths,
// data: images and blob: previews.
export function safeURL(u) {
  const s = String(u);
  if (/^(https?:|blob:|data:image\/[a-z0-9.+-]+;base64,|\/(?!\/))/i.test(s)) return s;
  return 'about:blank';
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

// Errors next to their fields. A form holds elements with data-error-for="field names"
// (and data-control naming the input to mark); details of the API's VALIDATION_ERROR go
// there, anything else into the form's .form-alert.
export function clearErrors(form) {
  for (const box of $$('[data-error-for]', form)) { box.textContent = ''; box.hidden = true; }
  for (const c of $$('[aria-invalid]', form)) c.removeAttribute('aria-invalid');
  const alert = $('.form-alert', form);
  if (alert) { alert.textContent = ''; alert.hidden = true; }
}

function errorBox(form, field) {
  const base = field.replace(/\[\d+\]$/, '');
  return $$('[data-error-for]', form).find((b) => {
    const names = b.dataset.errorFor.split(' ');
    return !b.parentElement.closest('[hidden]') && (names.includes(field) || names.includes(base));
  });
}

function sentence(s) {
  const t = String(s).trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}

// fieldError puts one message next to a field (client-side checks use it too).
export function fieldError(form, field, message) {
  const box = errorBox(form, field);
  if (!box) return false;
  box.textContent = box.textContent ? `${box.textContent} ${sentence(message)}` : sentence(message);
  box.hidden = false;
  const control = box.dataset.control && document.getElementById(box.dataset.control);
  if (control) control.setAttribute('aria-invalid', 'true');
  return true;
}

// showError renders an ApiError on a form and moves focus to the first thing to fix.
export function showError(form, err) {
  clearErrors(form);
  if (!(err instanceof ApiError)) err = new ApiError(0, { error: { message: String(err && err.message || err) } });
  const loose = [];
  for (const d of err.details) {
    if (!(d.field && fieldError(form, d.field, d.message))) loose.push(d.field ? `${d.field}: ${d.message}` : d.message);
  }
  const alert = $('.form-alert', form);
  let text = err.message;
  if (loose.length) text += ` ${loose.map(sentence).join(' ')}`;
  else if (err.details.length) text += ' See the marked fields.';
  if (err.requestId) text += ` (request ${err.requestId})`;
  if (alert) {
    alert.textContent = text;
    alert.hidden = false;
    alert.tabIndex = -1;
  }
  const first = $('[aria-invalid="true"]', form) || alert;
  if (first) first.focus({ preventScroll: false });
}

// busy marks a submit button as working (and gives it back).
export function busy(button, on, label) {
  if (on) {
    button.dataset.label = button.textContent;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    button.replaceChildren(el('span', { class: 'spinner', 'aria-hidden': 'true' }), label || 'Working…');
  } else {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    button.textContent = button.dataset.label || button.textContent;
  }
}

// onSubmit runs work when form is submitted: old errors cleared, the button busy while it
// runs, and an error it throws shown on the form.
export function onSubmit(form, button, label, work) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors(form);
    busy(button, true, label);
    try {
      await work();
    } catch (err) {
      showError(form, err);
    } finally {
      busy(button, false);
    }
  });
}

// Pager reads a list the API pages with a cursor (items or entries, next_cursor) a page at
// a time: each item goes to add, a "Show more" button asks for the next page, and a
// failure is said in the error box.
export class Pager {
  constructor({ path, params = {}, field = 'items', limit = 24, more, error, what, add, after = () => {} }) {
    Object.assign(this, { path, params, field, limit, more, error, what, add, after, cursor: '' });
    more.addEventListener('click', () => this.load());
  }

  async load() {
    this.error.hidden = true;
    if (this.cursor) busy(this.more, true, 'Loading…');
    try {
      const q = new URLSearchParams({ ...this.params, limit: String(this.limit) });
      if (this.cursor) q.set('cursor', this.cursor);
      const res = await api('GET', `${this.path}?${q}`);
      for (const item of res[this.field] || []) this.add(item);
      this.cursor = res.next_cursor || '';
    } catch (err) {
      this.error.textContent = `${this.what} could not be loaded: ${err.message}`;
      this.error.hidden = false;
    } finally {
      if (this.more.disabled) busy(this.more, false);
      this.more.hidden = !this.cursor;
      this.after();
    }
  }
}

// Formatting.
export const fmt = {
  credits: (n) => `${Number(n).toLocaleString('en')} credit${Math.abs(n) === 1 ? '' : 's'}`,
  bytes: (n) => (n >= 1 << 20 ? `${+(n / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`),
  when: (iso) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
  },
  operation: (op) => {
    const s = String(op || '');
    if (s.startsWith('thumbnail.')) return `Thumbnail · ${s.slice(10)}`;
    return { edit: 'Edit', faceswap: 'Face swap', score: 'Score', title: 'Titles', training: 'Persona/style training' }[s] || s || '—';
  },
};

// price of an operation from the server's table, or null.
export function price(op) {
  return Object.prototype.hasOwnProperty.call(prices, op) ? prices[op] : null;
}

// copy puts text on the clipboard, with a fallback for pages not served over https.
export async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const t = el('textarea', { class: 'visually-hidden', 'aria-hidden': 'true' });
    t.value = text;
    document.body.append(t);
    t.select();
    const ok = document.execCommand('copy');
    t.remove();
    return ok;
  }
}

// announce says something to screen readers through a polite live region.
let live;
export function announce(text) {
  if (!live) {
    live = el('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
    document.body.append(live);
  }
  live.textContent = '';
  setTimeout(() => { live.textContent = text; }, 30);
}

// Signing in and out.
let onSignedIn = null;

const signedOutWhy = 'thumbforge.signedOutWhy';

// signOut forgets this tab's secret and starts the page afresh, so nothing the last
// account saw stays in it; message says why, on the sign-in form.
export function signOut(message) {
  sessionStorage.removeItem(stores[kind]);
  if (message) sessionStorage.setItem(signedOutWhy, message);
  location.reload();
}

function showSignIn(message) {
  $('#app').hidden = true;
  $('#who').hidden = true;
  $('#signin').hidden = false;
  const form = $('#signin-form');
  clearErrors(form);
  if (message) fieldError(form, 'secret', message);
  $('#signin-secret').focus();
}

async function enter() {
  $('#signin').hidden = true;
  $('#app').hidden = false;
  $('#who').hidden = false;
  if (onSignedIn) await onSignedIn();
}

// refreshAccount shows the account's name and balance in the top bar (account pages).
export async function refreshAccount() {
  if (kind !== 'key') return null;
  try {
    const a = await api('GET', '/v2/account');
    $('#who-name').textContent = a.name;
    const b = $('#who-balance');
    b.textContent = fmt.credits(a.balance);
    b.hidden = false;
    return a;
  } catch {
    return null;
  }
}

// boot starts a page: the sign-in form until this tab has a working secret, then init.
// check verifies a secret before it is kept (it throws an ApiError when refused); an API
// key is checked by reading its account.
export function boot({ admin = false, check = (s) => api('GET', '/v2/account', undefined, { secret: s }), init }) {
  kind = admin ? 'admin' : 'key';
  let started = false;
  onSignedIn = async () => {
    if (kind === 'key') refreshAccount();
    if (!started) {
      started = true;
      await init();
    }
  };
  $('#signout').addEventListener('click', () => signOut(''));
  const form = $('#signin-form');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors(form);
    const input = $('#signin-secret');
    const secret = input.value.trim();
    if (!secret) {
      fieldError(form, 'secret', admin ? 'Paste the admin token' : 'Paste an API key');
      input.focus();
      return;
    }
    const button = $('button[type="submit"]', form);
    busy(button, true, 'Checking…');
    try {
      await check(secret);
      sessionStorage.setItem(stores[kind], secret);
      input.value = '';
      await enter();
      $('#main').focus();
    } catch (err) {
      showError(form, err instanceof ApiError && err.details.length === 0 ? new ApiError(err.status, {
        error: { message: err.message, details: [{ field: 'secret', message: err.message }] },
      }) : err);
    } finally {
      busy(button, false);
    }
  });
  if (sessionStorage.getItem(stores[kind])) enter();
  else {
    showSignIn(sessionStorage.getItem(signedOutWhy) || '');
    sessionStorage.removeItem(signedOutWhy);
  }
}
