// /ui/r/{group}/{version}/{kind}/{name}?partition=&namespace=: one resource, live from a watch:
// its metadata, data and conditions, its owner and what it owns (as a graph), the events about it
// and its reconciles, with "reconcile now" for the controllers that manage its type.

import { ApiError, get, listAll, watch } from '../api.js';
import { drawTree, ownedTree } from '../graph.js';
import {
  apiPath, conditions, failure, h, qualifiedName, show, showConnection, stateOf, tenancyParams, typeName, uiPath, when,
} from '../dom.js';
import { queueReconcile, reconcileTable } from './reconciles.js';

const REFRESH_MS = 3000;

export function resourceView(main, [group, version, kind, name], query) {
  const type = { group, groupVersion: version, kind };
  const tenancy = { partition: query.get('partition') || '', namespace: query.get('namespace') || '' };
  const id = { type, tenancy, name };
  const state = h('span', { class: 'live off', id: 'live' }, 'connecting');
  const facts = h('div', { id: 'facts' });
  const conditionsEl = h('div', { id: 'conditions' });
  const data = h('div', { id: 'data' });
  const graph = h('div', { id: 'ownership' });
  const events = h('div', { id: 'events' });
  const reconciles = h('div', { id: 'reconciles' });
  const actions = h('div', { id: 'actions' });
  show(main,
    h('h1', {}, h('a', { href: uiPath({ type }) }, typeName(type)), ' / ', qualifiedName(id), state,
      h('a', { href: uiPath({ type, tenancy, name }).replace('/ui/r/', '/ui/edit/'), id: 'edit', class: 'action' }, 'Edit (YAML)')),
    h('div', { class: 'grid2' },
      h('section', {}, h('h2', {}, 'Resource'), facts),
      h('section', {}, h('h2', {}, 'Data'), data)),
    h('h2', {}, 'Conditions'), conditionsEl,
    h('h2', {}, 'Owns'), graph,
    h('h2', {}, 'Reconciles'), actions, reconciles,
    h('h2', {}, 'Events'), events);

  let current = null;
  let stopped = false;
  let timer;

  function drawResource() {
    const r = current;
    if (!r) {
      show(facts, h('p', { class: 'deleted' }, 'Not found: deleted, or never created.'));
      show(data);
      show(conditionsEl);
      return;
    }
    show(facts, h('dl', { class: 'facts' },
      h('dt', {}, 'uid'), h('dd', {}, r.id.uid),
      h('dt', {}, 'version'), h('dd', { id: 'version' }, r.version),
      h('dt', {}, 'generation'), h('dd', {}, r.generation),
      h('dt', {}, 'tenancy'), h('dd', {}, [r.id.tenancy?.partition, r.id.tenancy?.namespace].filter(Boolean).join('/') || 'cluster'),
      h('dt', {}, 'owner'), h('dd', { id: 'owner' }, r.owner
        ? h('a', { href: uiPath(r.owner) }, `${typeName(r.owner.type)} ${qualifiedName(r.owner)}`) : 'none'),
      Object.entries(r.metadata || {}).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])));
    show(data, h('pre', {}, JSON.stringify(r.data || {}, null, 2)));
    const all = conditions(r);
    show(conditionsEl, all.length === 0 ? h('p', { class: 'muted' }, 'No status yet.') : h('table', {},
      h('thead', {}, h('tr', {}, ['Status key', 'Type', 'State', 'Reason', 'Message', 'Since'].map((t) => h('th', {}, t)))),
      h('tbody', {}, all.map((c) => h('tr', { 'data-condition': c.type },
        h('td', {}, c.key),
        h('td', {}, c.type),
        h('td', {}, h('span', { class: `chip ${stateOf(c)}`, 'data-state': stateOf(c).toUpperCase() }, stateOf(c).toUpperCase())),
        h('td', {}, c.reason || ''),
        h('td', {}, c.message || '', c.resource ? [' → ', h('a', { href: uiPath(c.resource) }, c.resource.name)] : ''),
        h('td', {}, when(c.lastTransitionTime)))))));
  }

  // What changes without a change of the resource itself (children, events, reconciles) is read
  // again on each change of it, and every few seconds.
  async function refreshRelated() {
    clearTimeout(timer);
    await Promise.all([drawGraph(), drawEvents(), drawReconciles()]);
    if (!stopped) timer = setTimeout(refreshRelated, REFRESH_MS);
  }

  async function drawGraph() {
    if (!current) {
      show(graph);
      return;
    }
    try {
      const { tree, nodes, cut } = await ownedTree(current);
      if (stopped) return;
      show(graph, drawTree(tree), h('p', { class: 'muted' },
        `${nodes} resource(s): this one and ${nodes - 1} it owns${cut ? ', cut at the first 300' : ''}.`));
    } catch (e) {
      show(graph, failure(e));
    }
  }

  async function drawEvents() {
    try {
      const { resources } = await listAll('/api/core/v1/Event', {});
      const mine = resources.filter((e) => {
        const subject = e.data?.subject;
        return subject?.name === name && subject.type?.kind === kind && subject.type?.group === group
          && (subject.tenancy?.partition || '') === tenancy.partition
          && (subject.tenancy?.namespace || '') === tenancy.namespace;
      })
        .sort((a, b) => (b.data.time || '').localeCompare(a.data.time || '')).slice(0, 50);
      if (stopped) return;
      show(events, mine.length === 0 ? h('p', { class: 'muted' }, 'No events.') : h('table', {},
        h('thead', {}, h('tr', {}, ['Time', 'Severity', 'Reason', 'Message', 'Controller'].map((t) => h('th', {}, t)))),
        h('tbody', {}, mine.map((e) => h('tr', {},
          h('td', {}, when(e.data.time)), h('td', {}, (e.data.severity || 'SEVERITY_NORMAL').replace('SEVERITY_', '').toLowerCase()),
          h('td', {}, e.data.reason || ''), h('td', {}, e.data.message || ''), h('td', {}, e.data.controller || ''))))));
    } catch (e) {
      show(events, e instanceof ApiError && e.status === 403 ? h('p', { class: 'muted' }, 'This token may not read events.') : failure(e));
    }
  }

  async function drawReconciles() {
    try {
      const { reconciles: list = [] } = await get('/api/reconciles',
        { resource: `${group}/${version}/${kind}/${name}`, ...tenancyParams(tenancy), limit: 50 });
      if (stopped) return;
      show(reconciles, reconcileTable(list, null));
    } catch (e) {
      show(reconciles, failure(e));
    }
  }

  // "Reconcile now", for each controller managing this type (listing them needs operator:read).
  get('/api/controllers').then(({ controllers = [] }) => {
    const mine = controllers.filter((c) => c.managedType.kind === kind && c.managedType.group === group
      && c.managedType.groupVersion === version);
    const result = h('span', { class: 'muted', id: 'reconcile-result' });
    show(actions, mine.map((c) => h('button', {
      'data-controller': c.name,
      onclick: async () => {
        try {
          await queueReconcile(c.name, id);
          result.textContent = ` queued for ${c.name}`;
          setTimeout(refreshRelated, 300);
        } catch (e) {
          result.textContent = ` ${e.message}`;
        }
      },
    }, `Reconcile now (${c.name})`)), result);
  }, () => show(actions));

  const stop = watch(apiPath(type), { ...tenancyParams(tenancy), name_prefix: name }, (event, body) => {
    if (event === 'reset') {
      current = null;
    } else if (event === 'upsert' && body.upsert.resource.id.name === name) {
      current = body.upsert.resource;
      drawResource();
      refreshRelated();
    } else if (event === 'delete' && body.delete.resource.id.name === name) {
      current = null;
      drawResource();
      refreshRelated();
    } else if (event === 'end_of_snapshot') {
      drawResource();
      refreshRelated();
    }
  }, (connection, error) => {
    showConnection(state, connection);
    if (error && connection === 'failed') show(facts, failure(error));
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
    stop();
  };
}
