// A table of reconciles (ControllerService/ListReconciles): when, which controller, which
// resource, why (the triggers), how it ended and how long it waited and took.

import { post } from '../api.js';
import { apiPath, h, idOfKey, millis, qualifiedName, tenancyParams, uiPath, when } from '../dom.js';

/** Queues {@code id} ({type, tenancy, name}) for {@code controller}: a reconcile with a MANUAL trigger. */
export function queueReconcile(controller, id) {
  return post(`/api/controllers/${encodeURIComponent(controller)}/reconcile/${apiPath(id.type, id.name).slice(5)}`,
    tenancyParams(id.tenancy));
}

/**
 * {@code reconciles} as a table; with {@code reconcileNow(controller, id)}, each resource row gets a
 * button that queues it again.
 */
export function reconcileTable(reconciles, reconcileNow) {
  if (reconciles.length === 0) return h('p', { class: 'muted' }, 'No reconciles recorded.');
  return h('table', { class: 'reconciles' },
    h('thead', {}, h('tr', {}, ['Started', 'Controller', 'Resource', 'Triggers', 'Result', 'Queued', 'Took', '']
      .map((t) => h('th', {}, t)))),
    h('tbody', {}, reconciles.map((r) => {
      const id = idOfKey(r.key);
      return h('tr', { 'data-controller': r.controller, 'data-key': r.key, 'data-result': r.result },
        h('td', {}, when(r.started)),
        h('td', {}, r.controller),
        h('td', {}, id ? h('a', { href: uiPath(id) }, `${id.type.kind} ${qualifiedName(id)}`) : r.key),
        h('td', { class: 'triggers' }, (r.triggers || []).map((t) =>
          h('div', { 'data-trigger': t.kind }, h('strong', {}, t.kind), t.detail ? ` ${t.detail}` : ''))),
        h('td', { class: r.result === 'error' ? 'error' : '' }, r.result, r.message ? h('div', { class: 'muted' }, r.message) : ''),
        h('td', { class: 'num' }, millis(r.queueWait)),
        h('td', { class: 'num' }, millis(r.duration)),
        h('td', {}, reconcileNow && id
          ? h('button', { class: 'reconcile-now', onclick: () => reconcileNow(r.controller, id) }, 'Reconcile now') : ''));
    })));
}
