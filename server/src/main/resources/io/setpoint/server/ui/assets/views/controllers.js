// /ui/controllers: each controller's queue, workers, reconcile rate and errors, and the recent
// reconciles of all of them with their triggers and a "reconcile now" button. Reconcile
// histories are not resources, so this page reads them again every two seconds.

import { get } from '../api.js';
import { failure, h, show, typeName } from '../dom.js';
import { queueReconcile, reconcileTable } from './reconciles.js';

const REFRESH_MS = 2000;

export function controllersView(main) {
  const table = h('div', { id: 'controllers' });
  const recent = h('div', { id: 'recent' });
  const result = h('p', { class: 'muted', id: 'reconcile-result' });
  show(main, h('h1', {}, 'Controllers'), table,
    h('h2', {}, 'Recent reconciles'), result, recent,
    h('p', { class: 'muted' }, `Read again every ${REFRESH_MS / 1000} s. Rates are per second since the previous read.`));

  let stopped = false;
  let timer;
  let previous = new Map(); // name -> {reconciles, errors, at}

  async function reconcileNow(controller, id) {
    try {
      await queueReconcile(controller, id);
      result.textContent = `Queued ${id.type.kind} ${id.name} for ${controller}.`;
    } catch (e) {
      result.textContent = e.message;
    }
  }

  async function refresh() {
    try {
      const [{ controllers = [] }, { reconciles = [] }] =
        await Promise.all([get('/api/controllers'), get('/api/reconciles', { limit: 50 })]);
      if (stopped) return;
      const now = performance.now();
      const next = new Map();
      show(table, h('table', {},
        h('thead', {}, h('tr', {}, ['Name', 'Manages', 'Placement', 'Running here', 'Workers', 'Queue', 'Reconciles', 'Per second',
          'Errors', 'Failure', 'Faults', 'Last fault'].map((t) => h('th', {}, t)))),
        h('tbody', {}, controllers.map((c) => {
          const total = Number(c.reconciles || 0);
          const errors = Number(c.errors || 0);
          const faults = Number(c.faults || 0);
          const before = previous.get(c.name);
          const rate = before ? ((total - before.total) * 1000) / (now - before.at) : null;
          next.set(c.name, { total, at: now });
          return h('tr', { 'data-controller': c.name },
            h('td', {}, c.name),
            h('td', {}, typeName(c.managedType)),
            h('td', {}, c.placement.toLowerCase()),
            h('td', {}, c.running ? 'yes' : 'no'),
            h('td', { class: 'num' }, c.workers || 0),
            h('td', { class: 'num queue' }, c.queueDepth || 0),
            h('td', { class: 'num total' }, total),
            h('td', { class: 'num' }, rate === null ? '' : rate.toFixed(1)),
            h('td', { class: `num${errors > 0 ? ' error' : ''}` }, errors),
            h('td', { class: 'error' }, c.failure || ''),
            h('td', { class: `num faults${faults > 0 ? ' error' : ''}` }, faults),
            h('td', { class: 'error last-fault' }, c.lastFault || ''));
        }))));
      previous = next;
      show(recent, reconcileTable(reconciles, reconcileNow));
    } catch (e) {
      if (!stopped) show(table, failure(e));
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
