// Generate: every thumbnail operation of the API on one form.
import { boot, api, el, $, $$, clearErrors, showError, busy, fmt, price, refreshAccount, announce, limits } from './app.js';
import { Picker } from './images.js';
import { MaskPainter } from './mask.js';

const form = $('#generate-form');
const button = $('#generate');
const pickers = {};
let painter;

const op = () => $('input[name="op"]:checked', form).value;
const model = () => (op() === 'recreate' ? 'mdl_2' : $('#model').value);
const radio = (name) => $(`input[name="${name}"]:checked`, form).value;

// Labels per operation: [image picker, prompt, prompt optional?, prompt placeholder].
const wording = {
  text: [null, 'Prompt', false, 'Ten budget travel tips for Japan'],
  reference: ['Reference image', 'Prompt', true, 'What the thumbnail should say'],
  recreate: ['Image to recreate'],
  edit: ['Image to edit', 'Instruction', false, 'Make the background blue'],
  faceswap: ['Target image (with a face)'],
};

function priceKey() {
  return { edit: 'edit', faceswap: 'faceswap' }[op()] || `thumbnail.${model()}`;
}

// layout shows the fields of the chosen operation and model.
function layout() {
  const o = op();
  const m = model();
  for (const box of $$('[data-ops]', form)) {
    let show = box.dataset.ops.split(' ').includes(o);
    if (show && box.dataset.models) show = box.dataset.models.split(' ').includes(m);
    box.hidden = !show;
  }
  const [imageLabel, promptLabel, optional, placeholder] = wording[o];
  if (imageLabel) pickers.image.setLabel(imageLabel);
  if (promptLabel) {
    $('#prompt-label').replaceChildren(promptLabel, optional ? el('span', { class: 'opt', text: ' (optional)' }) : '');
    $('#prompt').placeholder = placeholder;
  }
  const keep = $('input[name="format"][value=""]', form);
  if (o === 'edit' && form.dataset.lastOp !== 'edit') keep.checked = true;
  if (o !== 'edit' && keep.checked) $('input[name="format"][value="16:9"]', form).checked = true;
  form.dataset.lastOp = o;
  const mask = radio('mask_mode');
  $('#mask-paint').hidden = mask !== 'paint';
  $('#mask-upload').hidden = mask !== 'upload';
  if (!button.disabled) {
    const p = price(priceKey());
    button.textContent = p === null ? 'Generate' : `Generate · ${fmt.credits(p)}`;
  }
}

function paintTarget() {
  const img = pickers.image;
  painter.use(img.mode === 'upload' ? img.image : null);
}

// request builds the API call of the form's current state.
function request() {
  const o = op();
  const body = {};
  const add = (p) => { if (!p.root.hidden && !p.root.parentElement.closest('[hidden]')) Object.assign(body, p.fields()); };
  const customs = () => {
    for (const f of ['persona', 'style']) if ($(`#${f}`).value) body[f] = $(`#${f}`).value;
  };
  const masked = () => {
    const mode = radio('mask_mode');
    if (mode === 'paint') {
      const m = painter.dataURL();
      if (m) body.mask_base64 = m;
    } else if (mode === 'upload') add(pickers.mask);
  };
  const prompt = $('#prompt').value;
  const format = radio('format');
  switch (o) {
    case 'text':
      Object.assign(body, { prompt, model: model(), format });
      add(pickers.support);
      customs();
      return ['/v2/thumbnail/text', body];
    case 'reference':
      Object.assign(body, { model: model(), format });
      add(pickers.image);
      if (prompt.trim()) body.prompt = prompt;
      add(pickers.support);
      customs();
      return ['/v2/thumbnail/image', body];
    case 'recreate':
      Object.assign(body, { model: 'mdl_2', format, image_weight: radio('image_weight') });
      add(pickers.image);
      customs();
      return ['/v2/thumbnail/image', body];
    case 'edit':
      add(pickers.image);
      body.prompt = prompt;
      if (format) body.format = format;
      masked();
      return ['/v2/thumbnail/edit', body];
    default:
      add(pickers.image);
      add(pickers.face);
      body.format = format;
      masked();
      return ['/v2/thumbnail/faceswap', body];
  }
}

function stage(state) {
  $('#stage-empty').hidden = state !== 'empty';
  $('#stage-busy').hidden = state !== 'busy';
  $('#result-img').hidden = state !== 'image';
  $('#result-meta').hidden = state !== 'image';
}

function showResult(res, seconds, cost) {
  const img = $('#result-img');
  img.removeAttribute('data-loaded');
  img.onload = () => {
    img.dataset.loaded = 'true';
    stage('image');
    announce('The thumbnail is ready.');
    // On a phone the result is below the form: bring it into view.
    const box = $('#result-title').getBoundingClientRect();
    if (box.top > window.innerHeight || box.bottom < 0) $('#result-title').scrollIntoView({ behavior: 'smooth', block: 'start' });
  };
  img.onerror = () => {
    stage('empty');
    $('#stage-empty').replaceChildren(el('p', { text: 'The image was made but could not be shown here. Use the link below to open it.' }));
    $('#result-meta').hidden = false;
  };
  img.alt = `Generated thumbnail${$('#prompt').value.trim() && !$('#prompt').closest('[hidden]') ? `: ${$('#prompt').value.trim()}` : ''}`;
  img.src = res.output;
  $('#result-cost').textContent = cost === null ? '—' : fmt.credits(cost);
  $('#result-time').textContent = `${seconds.toFixed(1)} s`;
  $('#result-download').href = res.output;
  $('#result-download').setAttribute('download', `thumbforge-${res.request_id || 'thumbnail'}.jpg`);
  $('#result-open').href = res.output;
  $('#result-request').textContent = res.request_id ? `request ${res.request_id}` : '';
}

async function submit(ev) {
  ev.preventDefault();
  clearErrors(form);
  const shown = Object.values(pickers).filter((p) => !p.root.parentElement.closest('[hidden]'));
  if (!shown.map((p) => p.ready()).every(Boolean)) return;
  const [path, body] = request();
  const cost = price(priceKey());
  const hadImage = !$('#result-img').hidden;
  busy(button, true, 'Generating…');
  stage('busy');
  const start = performance.now();
  const tick = setInterval(() => {
    $('#stage-busy-text').textContent = `Generating… ${((performance.now() - start) / 1000).toFixed(1)} s`;
  }, 200);
  try {
    const res = await api('POST', path, body);
    showResult(res, (performance.now() - start) / 1000, cost);
    const acct = await refreshAccount();
    $('#result-balance').textContent = acct ? fmt.credits(acct.balance) : '—';
  } catch (err) {
    stage(hadImage ? 'image' : 'empty');
    showError(form, err);
  } finally {
    clearInterval(tick);
    $('#stage-busy-text').textContent = 'Generating…';
    busy(button, false);
    layout();
  }
}

// loadCustoms fills the persona and style pickers with the account's completed records.
async function loadCustoms() {
  const wanted = new URLSearchParams(location.search);
  for (const mode of ['persona', 'style']) {
    const select = $(`#${mode}`);
    try {
      const res = await api('GET', `/v2/custom?mode=${mode}&limit=100`);
      for (const item of res.items || []) {
        if (item.status !== 'completed') continue;
        select.append(el('option', { value: item.id, text: item.name }));
      }
      if (wanted.get(mode)) select.value = wanted.get(mode);
    } catch {
      select.append(el('option', { value: '', disabled: true, text: `Your ${mode}s could not be loaded` }));
    }
  }
}

function init() {
  for (const slot of $$('[data-picker]', form)) pickers[slot.dataset.picker] = new Picker(slot);
  painter = new MaskPainter($('#mask-paint'));
  pickers.image.onChange(paintTarget);
  form.addEventListener('change', layout);
  $('#prompt').addEventListener('input', () => {
    $('#prompt-count').textContent = `${[...$('#prompt').value].length} / ${limits.max_prompt}`;
  });
  form.addEventListener('submit', submit);
  stage('empty');
  layout();
  return loadCustoms();
}

boot({ init });
