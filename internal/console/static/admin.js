// The operator's page: maintenance switch, health, and accounts with their keys and
// credits, through /admin/api with the admin token.
import { boot, api, el, $, onSubmit, announce } from './app.js';
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
  // The engine's backends, when it has any: {name, backends: [{url, healthy, reason, in_flight, concurrency}]}.
  const engine = data.engine && typeof data.engine === 'object' ? data.engine : { name: 'builtin' };
  items.push(line('Engine', String(engine.name || 'unknown'), engine.backends ? undefined : true));
  for (const b of engine.backends || []) {
    const state = b.healthy ? 'healthy' : `unhealthy${b.reason ? `: ${b.reason}` : ''}`;
    items.push(line(String(b.url), `${state} · ${b.in_flight} of ${b.concurrency} busy`, !!b.healthy));
  }
  for (const [k, v] of Object.entries(data)) {
    if (k !== 'status' && k !== 'engine') items.push(line(k, typeof v === 'object' ? JSON.stringify(v) : String(v)));
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

async function create() {
  const credits = $('#new-credits').value;
  const a = await api('POST', '/admin/api/accounts', { name: $('#new-name').value, credits: credits === '' ? 0 : Number(credits) });
  $('#new-name').value = '';
  $('#new-credits').value = '0';
  announce(`Account ${a.name} created.`);
  await accounts();
}

boot({
  admin: true,
  check: (token) => api('GET', '/admin/api/maintenance', undefined, { secret: token }),
  init: () => {
    $('#maintenance').addEventListener('click', () => maintenance($('#maintenance').getAttribute('aria-pressed') !== 'true'));
    $('#health-refresh').addEventListener('click', health);
    onSubmit($('#create-form'), $('#create'), 'Creating…', create);
    return Promise.all([maintenance(), health(), accounts()]);
  },
});
