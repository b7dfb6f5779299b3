// One persona or style as a tile: portrait, status, a live progress bar while it trains
// (polling its record), its special instructions to edit, and delete.
import { api, el, $, onSubmit, busy, announce, limits } from './app.js';

const pollEvery = 500;

export class CustomTile {
  constructor(record, onGone) {
    this.onGone = onGone;
    this.root = el('li', { class: 'tile custom', 'data-id': record.id });
    this.render(record);
  }

  render(r) {
    this.record = r;
    const labelled = `custom-${r.id}`;
    const status = { completed: ['ok', 'Ready'], failed: ['bad', 'Failed'] }[r.status] || ['run', 'Training'];
    const pic = r.portrait_url
      ? el('img', { src: r.portrait_url, alt: `Portrait of ${r.name}`, loading: 'lazy' })
      : el('div', { class: 'empty muted', 'aria-hidden': 'true' });
    const parts = [
      el('span', { class: 'title', id: labelled, text: r.name }),
      el('div', { class: 'row' }, el('span', { class: 'badge', text: r.mode }), el('span', { class: `badge ${status[0]}`, text: status[1] })),
    ];
    // A tile that watched its record train keeps its bar, full, once training completed.
    if (r.status === 'processing') this.watched = true;
    if (r.status === 'processing' || (this.watched && r.status === 'completed')) {
      const pct = r.status === 'completed' ? 100 : Math.max(0, Math.min(100, Number(r.progress) || 0));
      parts.push(el('progress', { max: '100', value: String(pct), 'aria-labelledby': labelled, 'aria-valuetext': `${pct} %` }),
        el('span', { class: 'muted pct', text: `${pct} %` }));
    }
    if (r.status === 'failed') parts.push(el('p', { class: 'muted', text: 'Training failed: the images could not be used. Nothing was charged.' }));
    if (r.status === 'completed') parts.push(this.instructions(r));
    parts.push(this.actions(r));
    this.root.replaceChildren(el('div', { class: 'pic' }, pic), el('div', { class: 'body' }, ...parts));
  }

  instructions(r) {
    const id = `si-${r.id}`;
    const area = el('textarea', { id, rows: '2', maxlength: String(limits.max_instructions * 2), 'aria-describedby': `${id}-error` });
    area.value = r.special_instructions || '';
    const save = el('button', { type: 'submit', class: 'small' }, 'Save');
    const summary = el('summary', { text: r.special_instructions ? 'Special instructions' : 'Add special instructions' });
    const form = el('form', { class: 'stack', novalidate: true },
      el('p', { class: 'form-alert', role: 'alert', hidden: true }),
      el('div', { class: 'field' },
        el('label', { for: id, text: 'Special instructions' }), area,
        el('p', { class: 'field-error', id: `${id}-error`, 'data-error-for': 'special_instructions', 'data-control': id, hidden: true })),
      el('div', { class: 'row' }, save, el('span', { class: 'muted saved', role: 'status' })));
    onSubmit(form, save, 'Saving…', async () => {
      $('.saved', form).textContent = '';
      const rec = await api('PATCH', `/v2/custom/${encodeURIComponent(r.id)}`, { special_instructions: area.value });
      this.record = rec;
      $('.saved', form).textContent = 'Saved.';
      summary.textContent = rec.special_instructions ? 'Special instructions' : 'Add special instructions';
    });
    return el('details', {}, summary, form);
  }

  actions(r) {
    const row = el('div', { class: 'row' });
    if (r.status === 'completed') {
      row.append(el('a', { class: 'button small', href: `/?${r.mode}=${encodeURIComponent(r.id)}` }, 'Use in Generate'));
    }
    const del = el('button', { type: 'button', class: 'small danger', 'aria-describedby': `custom-${r.id}` }, 'Delete');
    const error = el('p', { class: 'field-error', role: 'alert', hidden: true });
    del.addEventListener('click', () => {
      const yes = el('button', { type: 'button', class: 'small danger' }, `Delete ${r.mode}`);
      const no = el('button', { type: 'button', class: 'small' }, 'Keep');
      const ask = el('div', { class: 'row' }, el('span', { text: 'Delete for good?' }), yes, no);
      row.replaceWith(ask);
      no.addEventListener('click', () => { ask.replaceWith(row); del.focus(); });
      yes.addEventListener('click', async () => {
        busy(yes, true, 'Deleting…');
        try {
          await api('DELETE', `/v2/custom/${encodeURIComponent(r.id)}`);
          announce(`${r.name} was deleted.`);
          this.stop();
          this.root.remove();
          this.onGone();
        } catch (err) {
          ask.replaceWith(row);
          error.textContent = err.message;
          error.hidden = false;
          del.focus();
        }
      });
      yes.focus();
    });
    row.append(del);
    return el('div', {}, row, error);
  }

  // poll follows a record while it trains, until it completes or fails.
  poll() {
    if (this.record.status !== 'processing' || this.timer) return;
    this.timer = setTimeout(async () => {
      this.timer = null;
      try {
        const r = await api('GET', `/v2/custom/${encodeURIComponent(this.record.id)}`);
        this.render(r);
        if (r.status !== 'processing') announce(`${r.name}: ${r.status === 'completed' ? 'training complete' : 'training failed'}.`);
      } catch (err) {
        if (err.status === 404) {
          this.root.remove();
          this.onGone();
        }
        if (err.status === 404 || err.status === 401) return;
      }
      this.poll();
    }, pollEvery);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }
}
