// Account: balance and limits, usage per day by operation as a chart, and the ledger.
import { boot, api, el, $, fmt, Pager } from './app.js';
import { usageChart } from './chart.js';

let usage = null;

const kinds = { grant: 'Credits added', topup: 'Automatic top-up', reserve: 'Held for a request', release: 'Hold given back', charge: 'Hold charged' };

function fail(id, what, err) {
  const box = $(`#${id}`);
  box.textContent = `${what} could not be loaded: ${err.message}`;
  box.hidden = false;
}

async function summary() {
  try {
    const a = await api('GET', '/v2/account');
    $('#acct-balance').textContent = fmt.credits(a.balance);
    $('#acct-name').textContent = a.name;
    $('#acct-concurrency').textContent = String(a.concurrency);
    $('#acct-status').textContent = a.suspended ? 'Suspended' : a.api_access ? 'Active' : 'API access off';
  } catch (err) {
    fail('account-error', 'The account', err);
  }
}

function drawUsage() {
  if (!usage) return;
  const measure = $('input[name="measure"]:checked').value;
  const { chart, legend, empty } = usageChart(usage.usage || [], usage.from, usage.to, measure, $('#usage-chart').clientWidth);
  $('#usage-chart').replaceChildren(chart, empty ? el('p', { class: 'muted', text: 'No paid requests in these 30 days yet.' }) : '');
  $('#usage-legend').replaceChildren(...legend);
}

async function loadUsage() {
  const to = new Date();
  const from = new Date(to.getTime() - 29 * 86400000);
  const q = new URLSearchParams({ from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) });
  try {
    usage = await api('GET', `/v2/account/usage?${q}`);
    drawUsage();
    $('#usage-table tbody').replaceChildren(...(usage.usage || []).map((r) => el('tr', {},
      el('td', { text: r.date }), el('td', { text: fmt.operation(r.operation) }),
      el('td', { class: 'num', text: String(r.count) }), el('td', { class: 'num', text: String(r.credits) }))));
  } catch (err) {
    fail('usage-error', 'The usage', err);
  }
}

function ledgerRow(e) {
  return el('tr', {},
    el('td', {}, el('time', { datetime: e.created_at, text: fmt.when(e.created_at) })),
    el('td', { text: kinds[e.kind] || e.kind }),
    el('td', { text: e.operation ? fmt.operation(e.operation) : '—' }),
    el('td', { class: `num ${e.delta > 0 ? 'plus' : e.delta < 0 ? 'minus' : ''}`, text: e.delta > 0 ? `+${e.delta}` : String(e.delta) }));
}

boot({
  init: () => {
    for (const r of document.querySelectorAll('input[name="measure"]')) r.addEventListener('change', drawUsage);
    let resized;
    window.addEventListener('resize', () => {
      clearTimeout(resized);
      resized = setTimeout(drawUsage, 150);
    });
    const body = $('#ledger tbody');
    const ledger = new Pager({
      path: '/v2/account/ledger', field: 'entries', limit: 25, more: $('#ledger-more'), error: $('#ledger-error'),
      what: 'The ledger', add: (e) => body.append(ledgerRow(e)),
      after: () => {
        if (!body.children.length) body.append(el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'No movements yet.' })));
      },
    });
    return Promise.all([summary(), loadUsage(), ledger.load()]);
  },
});
