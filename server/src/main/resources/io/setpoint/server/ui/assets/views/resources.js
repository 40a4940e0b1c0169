// /ui/r/{group}/{version}/{kind}: the resources of a type, live from a watch, with their
// conditions; filtered by tenancy and name prefix (by the server) and failing conditions.

import { get, watch } from '../api.js';
import {
  chip, conditions, failure, h, health, qualifiedName, show, showConnection, tenancyQuery, typeName, uiPath,
} from '../dom.js';

export function resourcesView(main, [group, version, kind], query, { navigate }) {
  const type = { group, groupVersion: version, kind };
  const name = typeName(type);
  const filter = {
    partition: query.get('partition') ?? '',
    namespace: query.get('namespace') ?? '',
    prefix: query.get('prefix') ?? '',
    failing: query.get('failing') === '1',
  };
  const state = h('span', { class: 'live off', id: 'live' }, 'connecting');
  const count = h('span', { class: 'muted', id: 'count' });
  const body = h('tbody');
  const problem = h('div');
  const input = (key, label) => h('label', {}, label,
    h('input', { type: 'text', name: key, value: filter[key], placeholder: key === 'prefix' ? '' : '* for all' }));
  const failing = h('input', { type: 'checkbox', name: 'failing', checked: filter.failing });
  const form = h('form', {
    class: 'filters',
    onsubmit: (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const next = new URLSearchParams();
      for (const key of ['partition', 'namespace', 'prefix']) {
        const value = (data.get(key) || '').trim();
        if (value) next.set(key, value);
      }
      if (failing.checked) next.set('failing', '1');
      const q = next.toString();
      navigate(`${uiPath({ type })}${q ? `?${q}` : ''}`, true);
    },
  }, input('partition', 'Partition'), input('namespace', 'Namespace'), input('prefix', 'Name prefix'),
  h('label', { class: 'check' }, failing, 'Failing conditions only'),
  h('button', { type: 'submit', id: 'apply-filters' }, 'Filter'));
  failing.addEventListener('change', () => form.requestSubmit());

  const newLink = h('a', { href: `/ui/new/${encodeURIComponent(group)}/${encodeURIComponent(version)}/${encodeURIComponent(kind)}`,
    id: 'new-resource', class: 'action' }, 'New (YAML)');
  show(main, h('h1', {}, name, state, newLink), form, problem,
    h('table', { id: 'resources' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Conditions'), h('th', {}, 'Owner'),
        h('th', { class: 'num' }, 'Version'))),
      body),
    count);

  const resources = new Map();
  let drawn = false;
  function draw() {
    drawn = false;
    const shown = [...resources.values()]
      .filter((r) => !filter.failing || health(r) === 'false')
      .sort((a, b) => qualifiedName(a.id).localeCompare(qualifiedName(b.id)));
    show(body, shown.map((r) => h('tr', { 'data-name': r.id.name },
      h('td', {}, h('a', { href: uiPath(r.id) }, qualifiedName(r.id))),
      h('td', {}, conditions(r).map(chip)),
      h('td', {}, r.owner ? h('a', { href: uiPath(r.owner) }, `${r.owner.type.kind}/${r.owner.name}`) : ''),
      h('td', { class: 'num' }, r.version))));
    count.textContent = `${shown.length} shown of ${resources.size}`;
  }
  const redraw = () => {
    if (!drawn) {
      drawn = true;
      requestAnimationFrame(draw);
    }
  };

  let stop = () => {};
  let stopped = false;
  get('/api/types').then(({ types }) => {
    if (stopped) return;
    const served = types.find((t) => t.type === name);
    if (!served) {
      show(problem, h('p', { class: 'error' }, `This agent serves no type ${name}.`));
      return;
    }
    const params = { ...tenancyQuery(served.scope, filter.partition, filter.namespace), name_prefix: filter.prefix };
    stop = watch(served.path, params, (kind, event) => {
      if (kind === 'reset') resources.clear();
      else if (kind === 'upsert') resources.set(qualifiedName(event.upsert.resource.id), event.upsert.resource);
      else if (kind === 'delete') resources.delete(qualifiedName(event.delete.resource.id));
      redraw();
    }, (connection, error) => {
      showConnection(state, connection);
      show(problem, error ? failure(error) : null);
    });
  }, (e) => show(problem, failure(e)));
  return () => {
    stopped = true;
    stop();
  };
}
