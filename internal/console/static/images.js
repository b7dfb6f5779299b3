// Image inputs: reading a picked file under the API's limits (checked before anything is
// sent), and the picker that offers an upload (with drag and drop) or a link.
import { el, fmt, limits, $ } from './app.js';

// sniff names the image type from the first bytes, as the server does, or ''.
function sniff(b) {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'gif';
  if (String.fromCharCode(...b.slice(0, 4)) === 'RIFF' && String.fromCharCode(...b.slice(8, 12)) === 'WEBP') return 'webp';
  return '';
}

// dimensions reads width and height from the header, without decoding the pixels (a small
// file can announce a huge picture).
function dimensions(type, b) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    switch (type) {
      case 'png': return [v.getUint32(16), v.getUint32(20)];
      case 'gif': return [v.getUint16(6, true), v.getUint16(8, true)];
      case 'webp': {
        const chunk = String.fromCharCode(...b.slice(12, 16));
        if (chunk === 'VP8 ') return [v.getUint16(26, true) & 0x3fff, v.getUint16(28, true) & 0x3fff];
        if (chunk === 'VP8L') {
          const bits = v.getUint32(21, true);
          return [1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff)];
        }
        if (chunk === 'VP8X') return [1 + (v.getUint32(24, true) & 0xffffff), 1 + (v.getUint32(27, true) & 0xffffff)];
        return null;
      }
      case 'jpeg': {
        let i = 2;
        while (i + 9 < b.length) {
          if (b[i] !== 0xff) return null;
          const m = b[i + 1];
          if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) return [v.getUint16(i + 7), v.getUint16(i + 5)];
          i += 2 + v.getUint16(i + 2);
        }
        return null;
      }
    }
  } catch { /* a header cut short */ }
  return null;
}

function dataURL(file, type) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(`data:image/${type};base64,${String(r.result).split(',', 2)[1] || ''}`);
    r.onerror = () => reject(new Error(`${file.name} could not be read`));
    r.readAsDataURL(file);
  });
}

// readImage checks file against the API's limits (size, type by content, pixels) and
// returns it as a data URL with its facts; it throws an Error saying what is wrong.
export async function readImage(file) {
  if (file.size > limits.max_image_bytes) {
    throw new Error(`${file.name} is ${fmt.bytes(file.size)}; the limit is ${fmt.bytes(limits.max_image_bytes)} per image`);
  }
  const head = new Uint8Array(await file.slice(0, 512 * 1024).arrayBuffer());
  const type = sniff(head);
  if (!type) throw new Error(`${file.name} is not a JPEG, PNG, WebP or GIF image`);
  const dims = dimensions(type, head);
  if (!dims || !dims[0] || !dims[1]) throw new Error(`${file.name} could not be read as an image`);
  const [width, height] = dims;
  if (width * height > limits.max_pixels) {
    throw new Error(`${file.name} is ${width}×${height} (${(width * height / 1e6).toFixed(0)} megapixels); the limit is ${limits.max_pixels / 1e6} megapixels`);
  }
  return { name: file.name, size: file.size, type, width, height, data: await dataURL(file, type), url: URL.createObjectURL(file) };
}

let pickers = 0;

// Picker is one image input: an upload (button or drop) or a link, named by the API's
// pair of fields (e.g. image_url / image_base64). It replaces a placeholder element
// carrying data-label, data-url, data-data and optionally data-optional and data-hint.
export class Picker {
  constructor(slot) {
    const n = ++pickers;
    const id = slot.id || `picker-${n}`;
    this.urlField = slot.dataset.url;
    this.dataField = slot.dataset.data;
    this.optional = 'optional' in slot.dataset;
    this.image = null;
    this.listeners = [];
    this.legend = el('legend', {}, slot.dataset.label, this.optional ? el('span', { class: 'opt', text: ' (optional)' }) : null);
    this.file = el('input', { type: 'file', id: `${id}-file`, accept: 'image/jpeg,image/png,image/webp,image/gif', 'aria-describedby': `${id}-error` });
    this.url = el('input', { type: 'url', id: `${id}-url`, placeholder: 'https://…', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': `${id}-hint ${id}-error` });
    this.error = el('p', { class: 'field-error', id: `${id}-error`, 'data-error-for': `${this.urlField} ${this.dataField}`, 'data-control': `${id}-file`, hidden: true });
    const radio = (value, label, checked) => el('label', {}, el('input', { type: 'radio', name: `${id}-source`, value, checked, onchange: () => this.source(value) }), label);
    this.drop = el('label', { for: `${id}-file`, class: 'drop' },
      el('span', {}, 'Drop an image here or ', el('span', { class: 'like-link', text: 'choose a file' })),
      el('small', { text: `JPEG, PNG, WebP or GIF, up to ${fmt.bytes(limits.max_image_bytes)}` }));
    this.previewImg = el('img', { alt: '' });
    this.previewText = el('figcaption');
    this.preview = el('figure', { class: 'preview', hidden: true }, this.previewImg, this.previewText,
      el('button', { type: 'button', class: 'small', onclick: () => { this.clear(); this.file.focus(); } }, 'Remove'));
    this.uploadPane = el('div', {}, this.file, this.drop, this.preview);
    this.linkPane = el('div', { class: 'field', hidden: true },
      el('label', { for: `${id}-url`, class: 'visually-hidden', text: `${slot.dataset.label} link` }), this.url,
      el('p', { class: 'hint', id: `${id}-hint`, text: slot.dataset.hint || 'An https:// link to a JPEG, PNG, WebP or GIF image.' }));
    this.root = el('fieldset', { class: 'picker', id },
      this.legend,
      el('div', { class: 'seg', role: 'radiogroup', 'aria-label': `${slot.dataset.label}: source` },
        radio('upload', 'Upload', true), radio('link', 'Link', false)),
      this.uploadPane, this.linkPane, this.error);
    slot.replaceWith(this.root);

    this.file.addEventListener('change', () => this.take(this.file.files[0]));
    this.url.addEventListener('input', () => this.changed());
    for (const t of ['dragenter', 'dragover']) {
      this.drop.addEventListener(t, (ev) => { ev.preventDefault(); this.drop.classList.add('over'); });
    }
    for (const t of ['dragleave', 'drop']) this.drop.addEventListener(t, () => this.drop.classList.remove('over'));
    this.drop.addEventListener('drop', (ev) => {
      ev.preventDefault();
      if (ev.dataTransfer.files.length) this.take(ev.dataTransfer.files[0]);
    });
  }

  // mode is 'upload' or 'link'.
  get mode() { return $('input[type="radio"]:checked', this.root).value; }

  source(mode) {
    this.uploadPane.hidden = mode !== 'upload';
    this.linkPane.hidden = mode !== 'link';
    this.error.dataset.control = mode === 'upload' ? this.file.id : this.url.id;
    this.changed();
  }

  setLabel(text) { this.legend.firstChild.textContent = text; }

  async take(file) {
    this.say('');
    if (!file) return;
    try {
      const img = await readImage(file);
      this.setImage(img);
    } catch (err) {
      this.clear();
      this.say(err.message);
    }
  }

  setImage(img) {
    if (this.image) URL.revokeObjectURL(this.image.url);
    this.image = img;
    this.previewImg.src = img.url;
    this.previewImg.alt = `Preview of ${img.name}`;
    this.previewText.replaceChildren(el('span', { class: 'fname', text: img.name }),
      el('span', { text: `${img.width}×${img.height} · ${fmt.bytes(img.size)}` }));
    this.preview.hidden = false;
    this.changed();
  }

  clear() {
    if (this.image) URL.revokeObjectURL(this.image.url);
    this.image = null;
    this.file.value = '';
    this.preview.hidden = true;
    this.previewImg.removeAttribute('src');
    this.changed();
  }

  // say shows a client-side problem next to the picker ('' clears it).
  say(message) {
    this.problem = message;
    this.error.textContent = message ? `${message}.` : '';
    this.error.hidden = !message;
    const control = document.getElementById(this.error.dataset.control);
    if (message) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
  }

  // ready reports whether the picker is free of client-side problems; one it holds is shown
  // again (a form's clearErrors hides it) with the focus on the input.
  ready() {
    if (!this.problem) return true;
    this.say(this.problem);
    document.getElementById(this.error.dataset.control).focus();
    return false;
  }

  onChange(fn) { this.listeners.push(fn); }

  changed() { for (const fn of this.listeners) fn(this); }

  // fields returns the API fields this picker contributes ({} when empty).
  fields() {
    if (this.mode === 'link') {
      const u = this.url.value.trim();
      return u ? { [this.urlField]: u } : {};
    }
    return this.image ? { [this.dataField]: this.image.data } : {};
  }

  set hidden(h) { this.root.hidden = h; }
}
