// The usage chart: stacked bars per day and operation, plain SVG (no chart library).
import { el, svg, fmt } from './app.js';

const colours = ['#4338ca', '#0e9384', '#dc6803', '#c11574', '#2e90fa', '#4f7a21', '#7a5af8', '#667085', '#b42318'];
const M = { left: 44, right: 8, top: 12, bottom: 28 };

// days lists every YYYY-MM-DD from from to to (UTC).
export function days(from, to) {
  const out = [];
  for (let d = new Date(`${from}T00:00:00Z`); d <= new Date(`${to}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1)) {
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

function niceCeil(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// usageChart draws rows ({date, operation, count, credits}) over the days of [from, to],
// measuring 'credits' or 'count', width pixels wide (so its text keeps its size on any
// screen); it returns the chart and its legend items.
export function usageChart(rows, from, to, measure, width) {
  const W = Math.max(280, Math.round(width) || 760);
  const H = W < 560 ? 200 : 250;
  const span = days(from, to);
  const ops = [...new Set(rows.map((r) => r.operation))].sort();
  const colour = Object.fromEntries(ops.map((op, i) => [op, colours[i % colours.length]]));
  const by = {};
  for (const r of rows) {
    by[r.date] ??= {};
    by[r.date][r.operation] = (by[r.date][r.operation] || 0) + Number(r[measure] || 0);
  }
  const totals = span.map((d) => Object.values(by[d] || {}).reduce((a, b) => a + b, 0));
  const sum = totals.reduce((a, b) => a + b, 0);
  const top = niceCeil(Math.max(...totals, 0));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const y = (v) => M.top + plotH - (v / top) * plotH;
  const step = plotW / span.length;
  const labelEvery = Math.max(1, Math.ceil(48 / step));
  const unit = measure === 'credits' ? 'credits' : 'requests';
  const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc' },
    svg('title', { id: 'chart-title', text: `Usage per day, in ${unit}` }),
    svg('desc', { id: 'chart-desc', text: `${sum} ${unit} from ${from} to ${to}${ops.length ? `, by operation: ${ops.map(fmt.operation).join(', ')}` : ''}.` }));
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    chart.append(svg('line', { class: 'grid', x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }),
      svg('text', { x: M.left - 6, y: y(v) + 4, 'text-anchor': 'end', text: Number.isInteger(v) ? String(v) : v.toFixed(1) }));
  }
  span.forEach((d, i) => {
    const x = M.left + i * step + step * 0.15;
    let base = 0;
    for (const op of ops) {
      const v = (by[d] || {})[op] || 0;
      if (!v) continue;
      chart.append(svg('rect', { x: x.toFixed(1), y: y(base + v).toFixed(1), width: (step * 0.7).toFixed(1),
        height: (y(base) - y(base + v)).toFixed(1), fill: colour[op], rx: '2', 'data-day': d, 'data-op': op },
      svg('title', { text: `${d} · ${fmt.operation(op)}: ${v} ${unit}` })));
      base += v;
    }
    if ((span.length - 1 - i) % labelEvery === 0) {
      chart.append(svg('text', { x: (M.left + i * step + step / 2).toFixed(1), y: H - 10, 'text-anchor': 'middle', text: d.slice(5) }));
    }
  });
  const legend = ops.map((op) => el('li', {}, el('i', { class: `swatch swatch-${ops.indexOf(op) % colours.length}` }), fmt.operation(op)));
  return { chart, legend, empty: sum === 0 };
}
