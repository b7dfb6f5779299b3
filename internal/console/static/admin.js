// The operator's page: maintenance switch, health, and accounts with their keys and
// credits, through /admin/api with the admin token.
import { boot, api, el, $, clearErrors, showError, busy, announce } from './app.js';
import { AccountCard } from './admin-account.js';

async function maintenance(set) {
  const button = $('#maintenance');
  const error = $('#maintenance-error');
  error.hidden = true;
  try {
    const res = set === undefined ? await api('GET', '/admin/api/maintenance') : await api('PUT', '/admin/api/maintenance', { maintenance: set });
    const on = res.maintenance;
    button.setAttribute('aria-pressed', String(on));
    button.textContent = on ? 'Turn off' : 'Turn on';
    button.className = on ? 'primary' : '';
    $('#maintenance-state').textContent = on
      ? 'On: every API call answers 503 SERVICE_UNDER_MAINTENANCE.'
      : 'Off: the API is serving.';
    if (set !== undefined) announce(`Maintenance is ${on ? 'on' : 'off'}.`);
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
  }
}

// health shows /readyz as it answers: its status, then each part it reports (engine
// backends among them when the server lists them).
async function health() {
  const list = $('#health');
  const line = (name, value, ok) => el('li', {}, el('span', { text: name }),
    el('span', { class: `badge ${ok === undefined ? '' : ok ? 'ok' : 'bad'}`, text: value }));
  let data = null;
  let status = 0;
  try {
    const res = await fetch('/readyz', { cache: 'no-store', credentials: 'omit' });
    status = res.status;
    data = await res.json();
  } catch { /* shown below */ }
  if (!data) {
    list.replaceChildren(line('Service', status ? `answered ${status}` : 'unreachable', false));
    return;
  }
  const items = [line('Service', String(data.status || status), status === 200)];
  const good = (v) => ['ok', 'ready', 'healthy', 'up', true].includes(typeof v === 'string' ? v.toLowerCase() : v);
  for (const [k, v] of Object.entries(data)) {
    if (k === 'status') continue;
    for (const [name, value] of Array.isArray(v) ? v.map((x, i) => [x.name || x.url || `${k} ${i + 1}`, x]) : [[k, v]]) {
      const state = value && typeof value === 'object' ? (value.status ?? value.healthy ?? value.ok ?? JSON.stringify(value)) : value;
      items.push(line(`${k === name ? '' : `${k}: `}${name}`, String(state), good(state)));
    }
  }
  list.replaceChildren(...items);
}

async function accounts() {
  const error = $('#accounts-error');
  error.hidden = true;
  try {
    const res = await api('GET', '/admin/api/accounts');
    const list = res.accounts || [];
    $('#accounts').replaceChildren(...list.map((a) => new AccountCard(a).root));
    $('#accounts-count').textContent = `${list.length} account${list.length === 1 ? '' : 's'}`;
  } catch (err) {
    error.textContent = `The accounts could not be loaded: ${err.message}`;
    error.hidden = false;
  }
}

async function create(ev) {
  ev.preventDefault();
  const form = $('#create-form');
  clearErrors(form);
  const button = $('#create');
  busy(button, true, 'Creating…');
  try {
    const credits = $('#new-credits').value;
    const a = await api('POST', '/admin/api/accounts', { name: $('#new-name').value, credits: credits === '' ? 0 : Number(credits) });
    $('#new-name').value = '';
    $('#new-credits').value = '0';
    announce(`Account ${a.name} created.`);
    await accounts();
  } catch (err) {
    showError(form, err);
  } finally {
    busy(button, false);
  }
}

boot({
  admin: true,
  check: (token) => api('GET', '/admin/api/maintenance', undefined, { secret: token }),
  init: () => {
    $('#maintenance').addEventListener('click', () => maintenance($('#maintenance').getAttribute('aria-pressed') !== 'true'));
    $('#health-refresh').addEventListener('click', health);
    $('#create-form').addEventListener('submit', create);
    return Promise.all([maintenance(), health(), accounts()]);
  },
});
