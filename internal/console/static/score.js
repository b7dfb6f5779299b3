// Score: one thumbnail to a score out of 100, a bar per criterion, and the advice.
import { boot, api, el, $, onSubmit, fmt, price, announce } from './app.js';
import { Picker } from './images.js';

const form = $('#score-form');
let picker;

const grade = (n) => (n >= 70 ? 'good' : n >= 45 ? 'fair' : 'poor');
const human = (name) => String(name).replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

// bar is a meter drawn with CSS: its width is set through the CSSOM, which the CSP allows.
function bar(value, label) {
  const fill = el('span');
  const b = el('div', { class: `bar ${grade(value)}`, role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100',
    'aria-valuenow': String(value), 'aria-label': label }, fill);
  requestAnimationFrame(() => { fill.style.width = `${Math.max(0, Math.min(100, value))}%`; });
  return b;
}

function show(res) {
  $('#score-total').textContent = String(res.score);
  const total = $('#score-bar');
  total.className = `bar ${grade(res.score)}`;
  total.setAttribute('aria-valuenow', String(res.score));
  requestAnimationFrame(() => { $('span', total).style.width = `${res.score}%`; });
  $('#criteria').replaceChildren(...(res.criteria || []).map((c) => el('li', {},
    el('div', { class: 'head' }, el('span', { text: human(c.name) }), el('span', { text: `${c.score}` })),
    bar(c.score, human(c.name)),
    c.advice ? el('p', { text: c.advice }) : null)));
  const advice = res.advice && res.advice.length ? res.advice : ['Nothing to improve: it reads well.'];
  $('#advice').replaceChildren(...advice.map((a) => el('li', { text: a })));
  const img = $('#score-img');
  if (picker.image && picker.mode === 'upload') {
    img.src = picker.image.url;
    img.hidden = false;
  } else img.hidden = true;
  $('#score-empty').hidden = true;
  $('#score-result').hidden = false;
}

async function submit() {
  if (!picker.ready()) return;
  show(await api('POST', '/v2/thumbnail/score', picker.fields()));
  announce(`Scored ${$('#score-total').textContent} out of 100.`);
}

boot({
  init: () => {
    picker = new Picker($('[data-picker]', form));
    const p = price('score');
    if (p !== null) $('#score').textContent = `Score it · ${fmt.credits(p)}`;
    onSubmit(form, $('#score'), 'Scoring…', submit);
  },
});
