// Personas & styles: the account's records with live training progress, and creation from
// uploaded images checked against the API's limits before anything is sent.
import { boot, api, el, $, clearErrors, fieldError, onSubmit, fmt, price, announce, limits, Pager, refreshAccount } from './app.js';
import { readImage } from './images.js';
import { CustomTile } from './custom-tile.js';

const form = $('#create-form');
const lists = {};
let chosen = []; // read images, in order

const hints = {
  persona: 'Three photos of one person, the face clearly visible.',
  style: 'Three images that share the look you want: colours, light, texture.',
};

const mode = () => $('input[name="mode"]:checked', form).value;

// list is one section (personas or styles): its records, newest first, a page at a time.
function list(mode) {
  const ul = $(`#${mode}s`);
  const changed = () => { $(`#${mode}s-empty`).hidden = ul.children.length > 0; };
  const add = (record, first) => {
    const tile = new CustomTile(record, changed);
    if (first) ul.prepend(tile.root);
    else ul.append(tile.root);
    tile.poll();
    changed();
  };
  const pager = new Pager({ path: '/v2/custom', params: { mode }, limit: 12, more: $(`#${mode}s-more`),
    error: $(`#${mode}s-error`), what: `Your ${mode}s`, add: (r) => add(r, false), after: changed });
  return { add, load: () => pager.load() };
}

function showChosen() {
  const list = $('#images-list');
  list.replaceChildren(...chosen.map((img, i) => el('li', {},
    el('img', { src: img.url, alt: `Image ${i + 1}: ${img.name}` }),
    el('span', { class: 'meta', text: `${img.width}×${img.height} · ${fmt.bytes(img.size)}` }),
    el('button', { type: 'button', class: 'small', 'aria-label': `Remove ${img.name}`, onclick: () => {
      URL.revokeObjectURL(img.url);
      chosen = chosen.filter((c) => c !== img);
      showChosen();
      $('#images').focus();
    } }, '✕'))));
  const need = limits.training_images;
  $('#images-count').textContent = `${chosen.length} of ${need} images chosen.`;
}

async function take(files) {
  clearErrors(form);
  const problems = [];
  for (const f of files) {
    if (chosen.length >= limits.training_images) {
      problems.push(`Only ${limits.training_images} images are used: remove one to add ${f.name}`);
      continue;
    }
    try {
      chosen.push(await readImage(f));
    } catch (err) {
      problems.push(err.message);
    }
  }
  $('#images').value = '';
  showChosen();
  for (const p of problems) fieldError(form, 'image_base64s', p);
}

// check applies the API's rules to the form before anything is uploaded.
function check() {
  const name = $('#name').value;
  const n = [...name].length;
  let ok = true;
  const bad = (field, msg) => { fieldError(form, field, msg); ok = false; };
  if (n < 1 || !name.trim()) bad('name', 'Give it a name');
  else if (n > limits.max_name) bad('name', `At most ${limits.max_name} characters (this one has ${n})`);
  else if (!/^[\p{L}\p{N}\s_-]+$/u.test(name)) bad('name', 'Use only letters, digits, spaces, hyphens and underscores');
  else if (limits.reserved_names.includes(name.trim().toLowerCase())) bad('name', `"${name.trim()}" is reserved: choose another name`);
  if (chosen.length !== limits.training_images) bad('image_base64s', `Choose exactly ${limits.training_images} images (${chosen.length} chosen)`);
  const total = chosen.reduce((s, c) => s + c.data.length, 0) + 1024;
  if (total > limits.max_body_bytes) bad('image_base64s', `Together the images are too large to send (${fmt.bytes(total)} encoded; the limit is ${fmt.bytes(limits.max_body_bytes)}): use smaller files`);
  return ok;
}

// create sends the form once it passes the API's rules; a refusal shows by its fields.
async function create() {
  if (!check()) {
    $('[aria-invalid="true"]', form)?.focus();
    return;
  }
  const m = mode();
  const res = await api('POST', `/v2/custom/${m}`, { name: $('#name').value, image_base64s: chosen.map((c) => c.data) });
  const record = await api('GET', `/v2/custom/${encodeURIComponent(res.id)}`);
  lists[m].add(record, true);
  announce(`Training of ${record.name} started.`);
  refreshAccount();
  for (const c of chosen) URL.revokeObjectURL(c.url);
  chosen = [];
  $('#name').value = '';
  showChosen();
}

function layout() {
  $('#mode-hint').textContent = hints[mode()];
  const p = price('training');
  if (!$('#create').disabled) $('#create').textContent = p === null ? 'Create and train' : `Create and train · ${fmt.credits(p)}`;
}

boot({
  init: () => {
    $('#images-rule').textContent = `Exactly ${limits.training_images}: JPEG, PNG, WebP or GIF, up to ${fmt.bytes(limits.max_image_bytes)} each`;
    $('#name').maxLength = limits.max_name * 2;
    $('#images').addEventListener('change', () => take([...$('#images').files]));
    const drop = $('#images-drop');
    for (const t of ['dragenter', 'dragover']) drop.addEventListener(t, (ev) => { ev.preventDefault(); drop.classList.add('over'); });
    for (const t of ['dragleave', 'drop']) drop.addEventListener(t, () => drop.classList.remove('over'));
    drop.addEventListener('drop', (ev) => { ev.preventDefault(); take([...ev.dataTransfer.files]); });
    form.addEventListener('change', layout);
    onSubmit(form, $('#create'), 'Uploading…', create);
    showChosen();
    layout();
    lists.persona = list('persona');
    lists.style = list('style');
    return Promise.all([lists.persona.load(), lists.style.load()]);
  },
});
