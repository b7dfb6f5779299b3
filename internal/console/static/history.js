// History: the account's outputs still within retention, as a grid, newest first.
import { boot, api, el, $, fmt, busy } from './app.js';

let cursor = '';

function hoursLeft(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (!(ms > 0)) return 'expired';
  const h = Math.floor(ms / 3600000);
  return h >= 1 ? `expires in ${h} h` : `expires in ${Math.max(1, Math.round(ms / 60000))} min`;
}

function tile(item) {
  const label = `${fmt.operation(item.operation)}, ${fmt.when(item.created_at)}`;
  return el('li', { class: 'tile' },
    el('a', { class: 'pic', href: item.output, target: '_blank', rel: 'noopener noreferrer', 'aria-label': `Open ${label}` },
      el('img', { src: item.output, alt: '', loading: 'lazy' })),
    el('div', { class: 'body' },
      el('span', { class: 'title', text: fmt.operation(item.operation) }),
      el('time', { class: 'muted', datetime: item.created_at, text: fmt.when(item.created_at) }),
      el('span', { class: 'muted', text: hoursLeft(item.expires_at) }),
      el('div', { class: 'row' },
        el('a', { class: 'button small', href: item.output, download: `thumbforge-${item.request_id}.jpg` }, 'Download'))));
}

async function load() {
  const more = $('#history-more');
  const error = $('#history-error');
  error.hidden = true;
  if (cursor) busy(more, true, 'Loading…');
  try {
    const q = new URLSearchParams({ limit: '24' });
    if (cursor) q.set('cursor', cursor);
    const res = await api('GET', `/v2/outputs?${q}`);
    const items = res.items || [];
    $('#history').append(...items.map(tile));
    cursor = res.next_cursor || '';
    $('#history-empty').hidden = $('#history').children.length > 0;
  } catch (err) {
    error.textContent = `The history could not be loaded: ${err.message}`;
    error.hidden = false;
  } finally {
    if (more.disabled) busy(more, false);
    more.hidden = !cursor;
  }
}

boot({
  init: () => {
    $('#history-more').addEventListener('click', load);
    return load();
  },
});
