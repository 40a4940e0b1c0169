// Line charts as inline SVG: the agent's meters over the last 15 minutes (GET /api/operator/metrics).

import { h, s } from './dom.js';

const W = 420;
const H = 150;
const PAD = { left: 46, right: 10, top: 22, bottom: 20 };
const COLORS = ['#0969da', '#cf222e'];

/** The charts the cluster page draws: each a title, a unit and the sample fields it plots. */
export const CHARTS = [
  { id: 'writes', title: 'Writes', unit: '/s', series: [{ field: 'writesPerSecond', label: 'writes/s' }], counts: 'writes' },
  {
    id: 'latency', title: 'Write latency', unit: ' ms',
    series: [{ field: 'writeLatencyP50Ms', label: 'p50' }, { field: 'writeLatencyP99Ms', label: 'p99' }],
  },
  { id: 'watch-events', title: 'Watch events', unit: '/s', series: [{ field: 'watchEventsPerSecond', label: 'events/s' }] },
  { id: 'reconciles', title: 'Reconciles', unit: '/s', series: [{ field: 'reconcilesPerSecond', label: 'reconciles/s' }] },
  { id: 'queue-depth', title: 'Work-queue depth', unit: '', series: [{ field: 'queueDepth', label: 'keys waiting' }] },
  { id: 'errors', title: 'Errors', unit: '/s', series: [{ field: 'errorsPerSecond', label: 'errors/s' }] },
];

function format(value) {
  if (value === 0) return '0';
  if (Math.abs(value) >= 100) return String(Math.round(value));
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toPrecision(2);
}

/**
 * One chart of {@code samples} ({time, ...fields}), {@code window} samples wide so that a chart
 * fills from the right as samples arrive. Each line's values are on its element (data-values) and
 * the writes chart's raw counts on the chart (data-counts), so what is drawn can be read back.
 */
export function lineChart(chart, samples, window, intervalSeconds) {
  const all = chart.series.flatMap((line) => samples.map((x) => x[line.field]).filter((v) => v !== null && v !== undefined));
  // An empty or all-zero chart still gets a scale of 0 to 1.
  const max = Math.max(0, ...all);
  const top = max > 0 ? max * 1.1 : 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, window - 1);
  const offset = window - samples.length;
  const x = (i) => PAD.left + (offset + i) * step;
  const y = (v) => PAD.top + plotH - (v / top) * plotH;
  const lines = chart.series.map((line, n) => {
    const values = samples.map((sample) => sample[line.field]);
    // A gap (no writes, so no latency) breaks the line rather than drawing a zero.
    const runs = [];
    let run = [];
    values.forEach((v, i) => {
      if (v === null || v === undefined) {
        if (run.length) runs.push(run);
        run = [];
      } else {
        run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      }
    });
    if (run.length) runs.push(run);
    return s('g', { class: 'series', 'data-series': line.field,
      'data-values': values.map((v) => (v === null || v === undefined ? '' : v)).join(',') },
    runs.map((points) => (points.length === 1
      ? s('circle', { cx: points[0].split(',')[0], cy: points[0].split(',')[1], r: 2, fill: COLORS[n] })
      : s('polyline', { points: points.join(' '), stroke: COLORS[n] }))));
  });
  const last = chart.series.map((line) => {
    const v = samples.length ? samples[samples.length - 1][line.field] : null;
    return `${line.label} ${v === null || v === undefined ? '–' : format(v) + chart.unit}`;
  }).join(' · ');
  const span = window * intervalSeconds;
  const since = span >= 120 ? `−${Math.round(span / 60)} min` : `−${Math.round(span)} s`;
  return h('figure', { class: 'chart', id: `chart-${chart.id}` },
    s('svg', {
      viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'chart', role: 'img', 'aria-label': chart.title,
      'data-chart': chart.id, 'data-samples': samples.length,
      'data-counts': chart.counts ? samples.map((sample) => sample[chart.counts]).join(',') : null,
    },
    s('text', { x: PAD.left, y: 14, class: 'title' }, `${chart.title}: ${last}`),
    s('line', { x1: PAD.left, y1: PAD.top + plotH, x2: W - PAD.right, y2: PAD.top + plotH, class: 'axis' }),
    s('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: PAD.top + plotH, class: 'axis' }),
    s('text', { x: PAD.left - 4, y: PAD.top + 4, class: 'tick', 'text-anchor': 'end' }, format(top)),
    s('text', { x: PAD.left - 4, y: PAD.top + plotH, class: 'tick', 'text-anchor': 'end' }, '0'),
    s('text', { x: PAD.left, y: H - 4, class: 'tick' }, since),
    s('text', { x: W - PAD.right, y: H - 4, class: 'tick', 'text-anchor': 'end' }, 'now'),
    lines));
}
