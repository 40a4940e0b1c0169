// /ui/: the served types, with how many resources of each the token can list.

import { ApiError, get, listAll } from '../api.js';
import { failure, h, show, tenancyQuery, typeOf, uiPath } from '../dom.js';

const REFRESH_MS = 5000;
const COUNT_LIMIT = 10000;

export function typesView(main, parts, query) {
  const body = h('tbody');
  show(main, h('h1', {}, 'Types'),
    h('table', { id: 'types' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Type'), h('th', {}, 'Scope'), h('th', { class: 'num' }, 'Resources'))),
      body),
    h('p', { class: 'muted' }, `Counts cover every tenancy and refresh every ${REFRESH_MS / 1000} s. `
      + 'Types this token may not list are left out.'));
  let stopped = false;
  let timer;
  async function refresh() {
    try {
      const { types } = await get('/api/types');
      const rows = await Promise.all(types.map(async (t) => {
        const type = typeOf(t.path);
        try {
          const { resources, more } = await listAll(t.path, tenancyQuery(t.scope), COUNT_LIMIT);
          const count = more ? `${resources.length}+` : String(resources.length);
          return h('tr', { 'data-type': t.type },
            h('td', {}, h('a', { href: uiPath({ type }) }, t.type)),
            h('td', {}, t.scope.replace('SCOPE_', '').toLowerCase()),
            h('td', { class: 'num count' }, count));
        } catch (e) {
          if (e instanceof ApiError && e.status === 403) return null;
          return h('tr', { 'data-type': t.type }, h('td', {}, t.type), h('td', {}), h('td', { class: 'error' }, e.message));
        }
      }));
      if (!stopped) show(body, rows);
    } catch (e) {
      if (!stopped) show(body, h('tr', {}, h('td', { colspan: 3 }, failure(e))));
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
