// History: the account's outputs still within retention, as a grid, newest first.
import { boot, el, $, fmt, Pager } from './app.js';

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
      el('span', { class: 'muted' }, el('time', { datetime: item.created_at, text: fmt.when(item.created_at) }), ` · ${hoursLeft(item.expires_at)}`),
      el('div', { class: 'row' },
        el('a', { class: 'button small', href: item.output, download: `thumbforge-${item.request_id}.jpg` }, 'Download'))));
}

boot({
  init: () => new Pager({
    path: '/v2/outputs', more: $('#history-more'), error: $('#history-error'), what: 'The history',
    add: (item) => $('#history').append(tile(item)),
    after: () => { $('#history-empty').hidden = $('#history').children.length > 0; },
  }).load(),
});
