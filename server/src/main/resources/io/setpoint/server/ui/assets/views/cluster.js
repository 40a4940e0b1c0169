// /ui/cluster: the cluster as the agent serving the UI knows it (GET /api/operator/cluster, each
// second): members, leader, term, indexes, lag, last contact, disk and readiness; and charts of the
// agent's meters over the last 15 minutes (GET /api/operator/metrics).

import { get } from '../api.js';
import { CHARTS, lineChart } from '../charts.js';
import { failure, h, millis, show } from '../dom.js';

const REFRESH_MS = 1000;

function bytes(n) {
  if (n === undefined || n === null) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Number(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

function role(peer) {
  if (peer.unreachable) return 'unreachable';
  return peer.leader ? 'leader' : 'follower';
}

function membersTable(status) {
  const self = status.answeredBy;
  const leads = (status.peers || []).some((p) => p.name === self && p.leader);
  return h('table', { id: 'members' },
    h('thead', {}, h('tr', {}, ['Member', 'Address', 'Role', 'Index', 'Lag', 'Last contact'].map((t) => h('th', {}, t)))),
    h('tbody', {}, (status.peers || []).map((p) => h('tr', { 'data-member': p.name, 'data-role': role(p), class: role(p) },
      h('td', {}, p.name, p.name === self ? h('span', { class: 'muted' }, ' (this agent)') : ''),
      h('td', {}, p.address || '–'),
      h('td', { class: 'role' }, h('span', { class: `chip ${p.unreachable ? 'false' : 'true'}` }, role(p))),
      h('td', { class: 'num' }, p.index ?? '–'),
      h('td', { class: 'num lag' }, p.lag ?? '–'),
      h('td', { class: 'num contact' }, p.name === self ? 'itself'
        : p.lastContact !== undefined ? `${millis(p.lastContact)} ago` : '–')))),
    status.replicated && !leads
      ? h('caption', { class: 'muted' }, 'This agent follows: ask the leader for every member\'s index and last contact.')
      : null);
}

function summary(status) {
  const disk = status.dataDir
    ? `${bytes(status.diskFreeBytes)} free of ${bytes(status.diskTotalBytes)} (${status.dataDir})`
    : 'no data directory (in memory)';
  return h('dl', { class: 'facts', id: 'cluster-facts' },
    h('dt', {}, 'answered by'), h('dd', { id: 'answered-by' }, status.answeredBy),
    h('dt', {}, 'replicated'), h('dd', { id: 'replicated' }, status.replicated
      ? 'yes (Raft)' : 'no: this agent runs the in-memory store, one member, not replicated'),
    h('dt', {}, 'leader'), h('dd', { id: 'leader' }, status.leader || 'none known'),
    status.replicated ? [
      h('dt', {}, 'term'), h('dd', { id: 'term' }, status.term || '0'),
      h('dt', {}, 'commit index'), h('dd', { id: 'commit-index' }, status.commitIndex || '0'),
      h('dt', {}, 'applied index'), h('dd', { id: 'applied-index' }, status.appliedIndex || '0'),
    ] : null,
    h('dt', {}, 'disk'), h('dd', { id: 'disk' }, disk),
    h('dt', {}, 'ready'), h('dd', { id: 'readiness', 'data-ready': status.ready ? 'true' : 'false',
      class: status.ready ? '' : 'error' }, status.ready ? 'ready' : `not ready: ${status.readiness}`));
}

export function clusterView(main) {
  const facts = h('div');
  const members = h('div');
  const charts = h('div', { class: 'charts', id: 'charts' });
  const note = h('p', { class: 'muted', id: 'charts-note' });
  show(main, h('h1', {}, 'Cluster'), facts, h('h2', {}, 'Members'), members,
    h('h2', {}, 'The last 15 minutes (this agent)'), note, charts);
  let stopped = false;
  let timer;
  async function refresh() {
    const [status, metrics] = await Promise.allSettled([get('/api/operator/cluster'), get('/api/operator/metrics')]);
    if (stopped) return;
    if (status.status === 'fulfilled') {
      show(facts, summary(status.value));
      show(members, membersTable(status.value));
    } else {
      show(facts, failure(status.reason));
      show(members);
    }
    if (metrics.status === 'fulfilled') {
      const { samples = [], window, intervalSeconds } = metrics.value;
      show(note, `One sample every ${intervalSeconds} s, the last ${window} kept; ${samples.length} so far.`);
      show(charts, CHARTS.map((chart) => lineChart(chart, samples, window, intervalSeconds)));
    } else {
      show(note);
      show(charts, failure(metrics.reason));
    }
    timer = setTimeout(refresh, REFRESH_MS);
  }
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
