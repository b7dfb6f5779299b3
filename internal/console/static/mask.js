// Mask painter: strokes drawn over an uploaded image, exported as the black-and-white PNG
// the API takes (white where the edit or swap applies), at the image's own proportions.
import { el } from './app.js';

const maxSide = 1280; // the server scales a mask to its image anyway

export class MaskPainter {
  constructor(host) {
    this.host = host;
    this.painted = false;
    this.size = el('input', { type: 'range', id: 'brush', min: '8', max: '160', value: '48' });
    this.canvas = el('canvas', { 'aria-label': 'Mask: paint over the part to change' });
    this.img = el('img', { alt: 'The image being masked' });
    this.note = el('p', { class: 'hint', text: 'Choose an uploaded image above to paint on it. A linked image cannot be painted on: upload a mask instead.' });
    this.board = el('div', { class: 'painter', hidden: true }, this.img, this.canvas);
    this.tools = el('div', { class: 'row', hidden: true },
      el('label', { for: 'brush', text: 'Brush' }), this.size,
      el('button', { type: 'button', class: 'small', onclick: () => this.clear() }, 'Clear'));
    host.append(this.note, this.board, this.tools);
    let drawing = false;
    let last = null;
    const at = (ev) => {
      const r = this.canvas.getBoundingClientRect();
      return [(ev.clientX - r.left) * this.canvas.width / r.width, (ev.clientY - r.top) * this.canvas.height / r.height];
    };
    this.canvas.addEventListener('pointerdown', (ev) => {
      drawing = true;
      last = at(ev);
      this.canvas.setPointerCapture(ev.pointerId);
      this.stroke(last, last);
    });
    this.canvas.addEventListener('pointermove', (ev) => {
      if (!drawing) return;
      const p = at(ev);
      this.stroke(last, p);
      last = p;
    });
    for (const t of ['pointerup', 'pointercancel']) this.canvas.addEventListener(t, () => { drawing = false; });
  }

  // use shows image (a Picker's read image) to paint on, or nothing.
  use(image) {
    this.board.hidden = this.tools.hidden = !image;
    this.note.hidden = !!image;
    if (!image) return;
    const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
    this.canvas.width = Math.max(1, Math.round(image.width * scale));
    this.canvas.height = Math.max(1, Math.round(image.height * scale));
    this.img.src = image.url;
    this.clear();
  }

  stroke(a, b) {
    const ctx = this.canvas.getContext('2d');
    const scale = this.canvas.width / Math.max(1, this.canvas.getBoundingClientRect().width);
    ctx.strokeStyle = '#ff2bd6';
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.lineWidth = Number(this.size.value) * scale;
    ctx.beginPath();
    ctx.moveTo(a[0], a[1]);
    ctx.lineTo(b[0] + 0.01, b[1]);
    ctx.stroke();
    this.painted = true;
  }

  clear() {
    this.canvas.getContext('2d').clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.painted = false;
  }

  // dataURL is the mask as a PNG data URL: white where painted, black elsewhere; '' when
  // nothing was painted.
  dataURL() {
    if (!this.painted || this.board.hidden) return '';
    const { width, height } = this.canvas;
    const white = el('canvas', { width, height });
    const w = white.getContext('2d');
    w.drawImage(this.canvas, 0, 0);
    w.globalCompositeOperation = 'source-in';
    w.fillStyle = '#fff';
    w.fillRect(0, 0, width, height);
    const out = el('canvas', { width, height });
    const o = out.getContext('2d');
    o.fillStyle = '#000';
    o.fillRect(0, 0, width, height);
    o.drawImage(white, 0, 0);
    return out.toDataURL('image/png');
  }
}
