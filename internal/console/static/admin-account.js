// One account on the operator's page: its state, credits, concurrency, suspension, API
// access and keys, each change through /admin/api.
import { api, el, onSubmit, busy, fmt, copy, announce } from './app.js';

let forms = 0;

// small builds a one-field form (label, input, button) whose errors show next to it.
function small({ label, field, type = 'number', value = '', min, max, button, submit }) {
  const id = `f${++forms}`;
  const input = el('input', { id, type, value: String(value), min, max, step: '1', inputmode: 'numeric', 'aria-describedby': `${id}-error` });
  const go = el('button', { type: 'submit', class: 'small' }, button);
  const form = el('form', { novalidate: true },
    el('div', { class: 'inline' },
      el('div', { class: 'field' }, el('label', { for: id, text: label }), input), go),
    el('p', { class: 'field-error', id: `${id}-error`, 'data-error-for': field, 'data-control': id, hidden: true }),
    el('p', { class: 'form-alert', role: 'alert', hidden: true }));
  onSubmit(form, go, '…', () => submit(input.value === '' ? null : Number(input.value)));
  return form;
}

export class AccountCard {
  constructor(account) {
    this.root = el('li', { class: 'acct', 'data-id': account.id });
    this.keysOpen = false;
    this.render(account);
  }

  render(a) {
    this.account = a;
    const name = `acct-${a.id}`;
    const badges = [];
    if (a.suspended) badges.push(el('span', { class: 'badge bad', text: 'Suspended' }));
    if (!a.api_access) badges.push(el('span', { class: 'badge bad', text: 'API access off' }));
    if (!badges.length) badges.push(el('span', { class: 'badge ok', text: 'Active' }));
    this.error = el('p', { class: 'field-error', role: 'alert', hidden: true });
    const toggle = (label, patch) => el('button', { type: 'button', class: 'small', 'aria-describedby': name,
      onclick: (ev) => this.patch(patch, ev.currentTarget) }, label);
    this.keys = el('div', { class: 'keys', hidden: !this.keysOpen });
    const keysButton = el('button', { type: 'button', class: 'small', 'aria-expanded': String(this.keysOpen), 'aria-describedby': name }, 'Keys');
    keysButton.addEventListener('click', () => this.toggleKeys(keysButton));
    this.root.replaceChildren(
      el('div', { class: 'switch-row' },
        el('div', {}, el('div', { class: 'name', id: name, text: a.name }), el('div', { class: 'ids mono', text: a.id })),
        el('div', { class: 'row' }, ...badges, el('strong', { class: 'balance', text: fmt.credits(a.balance) }))),
      el('div', { class: 'controls' },
        small({ label: 'Add credits', field: 'amount', min: '1', button: 'Add', submit: (n) => this.grant(n) }),
        small({ label: 'Requests at once', field: 'concurrency', value: a.concurrency, min: '1', max: '1000', button: 'Save',
          submit: (n) => this.patch({ concurrency: n }) })),
      el('div', { class: 'row gap-sm' },
        toggle(a.suspended ? 'Unsuspend' : 'Suspend', { suspended: !a.suspended }),
        toggle(a.api_access ? 'Turn API access off' : 'Turn API access on', { api_access: !a.api_access }),
        keysButton),
      this.error, this.keys);
    if (this.keysOpen) this.loadKeys();
  }

  async patch(body, button) {
    this.error.hidden = true;
    if (button) busy(button, true, '…');
    try {
      this.render(await api('PATCH', `/admin/api/accounts/${this.account.id}`, body));
      announce(`${this.account.name} updated.`);
    } catch (err) {
      if (button) busy(button, false);
      if (body.concurrency !== undefined) throw err;
      this.error.textContent = err.message;
      this.error.hidden = false;
    }
  }

  async grant(amount) {
    const res = await api('POST', `/admin/api/accounts/${this.account.id}/credits`, { amount });
    this.render({ ...this.account, balance: res.balance });
    announce(`${this.account.name} now has ${fmt.credits(res.balance)}.`);
  }

  toggleKeys(button) {
    this.keysOpen = !this.keysOpen;
    button.setAttribute('aria-expanded', String(this.keysOpen));
    this.keys.hidden = !this.keysOpen;
    if (this.keysOpen) this.loadKeys();
  }

  async loadKeys(secret) {
    const a = this.account;
    try {
      const res = await api('GET', `/admin/api/accounts/${a.id}/keys`);
      const rows = res.keys.map((k) => {
        const act = (label, status) => el('button', { type: 'button', class: `small${status === 'deleted' ? ' danger' : ''}`,
          onclick: async (ev) => {
            busy(ev.currentTarget, true, '…');
            try {
              await api('PATCH', `/admin/api/keys/${k.id}`, { status });
              announce(`Key ${k.prefix}… is now ${status}.`);
              this.loadKeys();
            } catch (err) {
              this.error.textContent = err.message;
              this.error.hidden = false;
            }
          } }, label);
        const actions = k.status === 'deleted' ? [] : [k.status === 'active' ? act('Deactivate', 'inactive') : act('Activate', 'active'), act('Delete', 'deleted')];
        return el('tr', {}, el('td', { class: 'mono', text: `${k.prefix}…` }), el('td', { text: k.status }),
          el('td', { text: fmt.when(k.created_at) }), el('td', {}, el('div', { class: 'row' }, ...actions)));
      });
      const make = el('button', { type: 'button', class: 'small primary' }, 'New key');
      make.addEventListener('click', async () => {
        busy(make, true, 'Making…');
        try {
          const k = await api('POST', `/admin/api/accounts/${a.id}/keys`);
          await this.loadKeys(k.key);
        } catch (err) {
          busy(make, false);
          this.error.textContent = err.message;
          this.error.hidden = false;
        }
      });
      const parts = [];
      if (secret) {
        const c = el('button', { type: 'button', class: 'small', onclick: async (ev) => { ev.currentTarget.textContent = (await copy(secret)) ? 'Copied' : 'Copy failed'; } }, 'Copy');
        parts.push(el('p', { class: 'hint', text: 'The new key, shown this once: give it to the account holder.' }),
          el('div', { class: 'secret', role: 'status' }, el('code', { class: 'new-key', text: secret }), c));
      }
      parts.push(el('div', { class: 'table-wrap' }, el('table', {},
        el('thead', {}, el('tr', {}, ...['Key', 'Status', 'Created', ''].map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'No keys yet.' }))))),
      el('div', { class: 'row' }, make));
      this.keys.replaceChildren(...parts);
    } catch (err) {
      this.keys.replaceChildren(el('p', { class: 'field-error', role: 'alert', text: `The keys could not be loaded: ${err.message}` }));
    }
  }
}
