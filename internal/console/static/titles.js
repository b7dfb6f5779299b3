// Titles: a prompt and/or an image (or a video link) to five suggestions with copy buttons.
import { boot, api, el, $, onSubmit, fmt, price, copy, announce } from './app.js';
import { Picker } from './images.js';

const form = $('#titles-form');
let picker;

function show(res) {
  const list = $('#titles');
  list.replaceChildren(...(res.outputs || []).map((t, i) => {
    const b = el('button', { type: 'button', class: 'small', 'aria-label': `Copy title ${i + 1}` }, 'Copy');
    b.addEventListener('click', async () => {
      const ok = await copy(t);
      b.textContent = ok ? 'Copied' : 'Copy failed';
      announce(ok ? `Title ${i + 1} copied.` : 'The title could not be copied.');
      setTimeout(() => { b.textContent = 'Copy'; }, 2000);
    });
    return el('li', {}, el('span', { class: 'text', text: t }), b);
  }));
  list.hidden = false;
  $('#titles-empty').hidden = true;
  $('#titles-compacted').hidden = !res.prompt_compacted;
  $('#titles-reasoning').textContent = res.reasoning || '';
}

async function submit() {
  if (!picker.ready()) return;
  const body = { ...picker.fields() };
  if ($('#prompt').value.trim() || !Object.keys(body).length) body.prompt = $('#prompt').value;
  show(await api('POST', '/v2/title/text', body));
  announce('Five title suggestions are ready.');
}

boot({
  init: () => {
    picker = new Picker($('[data-picker]', form));
    const p = price('title');
    if (p !== null) $('#suggest').textContent = `Suggest titles · ${fmt.credits(p)}`;
    onSubmit(form, $('#suggest'), 'Thinking…', submit);
  },
});
