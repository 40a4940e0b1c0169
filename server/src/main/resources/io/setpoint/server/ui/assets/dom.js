// Building the page: elements from data (text only, never parsed as HTML), and how resources,
// conditions and times are shown.

/** An element: h('a', {href: '/ui/'}, 'Types'). Attributes starting with "on" are listeners. */
export function h(tag, attributes = {}, ...children) {
  const svg = ['svg', 'g', 'rect', 'text', 'path', 'a', 'title', 'polyline', 'line', 'circle'].includes(tag) && attributes.svg;
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'svg' || value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** An SVG element. */
export function s(tag, attributes = {}, ...children) {
  return h(tag, { ...attributes, svg: true }, ...children);
}

/** A type's parts from its route path (/api/demo/v2/Artist) or its name (demo.v2.Artist). */
export function typeOf(text) {
  if (text.startsWith('/api/')) {
    const [group, version, kind] = text.slice(5).split('/');
    return { group, version, kind };
  }
  const kindAt = text.lastIndexOf('.');
  const versionAt = text.lastIndexOf('.', kindAt - 1);
  return { group: text.slice(0, versionAt), version: text.slice(versionAt + 1, kindAt), kind: text.slice(kindAt + 1) };
}

export function typeName(type) {
  return `${type.group}.${type.version || type.groupVersion}.${type.kind}`;
}

/** The API route of a type, or of one resource of it. */
export function apiPath(type, name) {
  const base = `/api/${encodeURIComponent(type.group)}/${encodeURIComponent(type.version || type.groupVersion)}/${encodeURIComponent(type.kind)}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** The query that names a tenancy: partition and namespace, when set. */
export function tenancyParams(tenancy = {}) {
  return { partition: tenancy.partition || '', namespace: tenancy.namespace || '' };
}

/** The UI address of a resource id ({type, tenancy, name}) or of a type's list. */
export function uiPath(id) {
  const type = id.type;
  const base = `/ui/r/${encodeURIComponent(type.group)}/${encodeURIComponent(type.groupVersion || type.version)}/${encodeURIComponent(type.kind)}`;
  if (id.name === undefined) return base;
  const query = new URLSearchParams(Object.entries(tenancyParams(id.tenancy)).filter(([, v]) => v)).toString();
  return `${base}/${encodeURIComponent(id.name)}${query ? `?${query}` : ''}`;
}

/** "partition/namespace/name" without the empty parts: a resource's name as lists show it. */
export function qualifiedName(id) {
  const t = id.tenancy || {};
  return [t.partition, t.namespace, id.name].filter(Boolean).join('/');
}

/**
 * A reconcile key as the manager writes it (demo.v2.Artist/default/default/miles) as an id; null
 * for keys that are not resources.
 */
export function idOfKey(key) {
  const parts = key.replace(/@.*$/, '').split('/');
  if (parts.length < 2 || parts.length > 4 || !/^[^.]+(\.[^.]+)*\.[^.]+\.[^.]+$/.test(parts[0])) return null;
  const t = typeOf(parts[0]);
  const tenancy = parts.length === 4 ? { partition: parts[1], namespace: parts[2] } : parts.length === 3 ? { partition: parts[1] } : {};
  return { type: { group: t.group, groupVersion: t.version, kind: t.kind }, tenancy, name: parts[parts.length - 1] };
}

/** Every condition of a resource's statuses, each with its status key. */
export function conditions(resource) {
  const out = [];
  for (const [key, status] of Object.entries(resource.status || {})) {
    for (const c of status.conditions || []) out.push({ key, ...c });
  }
  return out;
}

export function stateOf(condition) {
  return condition.state === 'STATE_TRUE' ? 'true' : condition.state === 'STATE_FALSE' ? 'false' : 'unknown';
}

/** 'false' when a condition is false, 'true' when all are true, else 'unknown'. */
export function health(resource) {
  const all = conditions(resource).map(stateOf);
  if (all.includes('false')) return 'false';
  return all.length > 0 && all.every((state) => state === 'true') ? 'true' : 'unknown';
}

export function chip(condition) {
  const state = stateOf(condition);
  const title = [condition.reason, condition.message].filter(Boolean).join(': ');
  return h('span', { class: `chip ${state}`, title, 'data-condition': condition.type, 'data-state': state.toUpperCase() },
    `${condition.type}=${state.toUpperCase()}`);
}

/** A time as local date and time, with the exact instant on hover. */
export function when(timestamp) {
  if (!timestamp) return '';
  const t = new Date(timestamp);
  return h('time', { datetime: timestamp, title: timestamp }, t.toLocaleString());
}

/** A protobuf JSON duration ("0.012s") in milliseconds, as text. */
export function millis(duration) {
  if (!duration) return '0 ms';
  const ms = parseFloat(duration) * 1000;
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`;
}

/** The list query of a type of {@code scope}: the tenancy given, every one (*) where none is. */
export function tenancyQuery(scope, partition = '', namespace = '') {
  const query = {};
  if (scope !== 'SCOPE_CLUSTER') query.partition = partition || '*';
  if (scope === 'SCOPE_NAMESPACE') query.namespace = namespace || '*';
  return query;
}

/** Shows a watch's connection ('live', 'reconnecting' or 'failed') in {@code el}. */
export function showConnection(el, connection) {
  el.textContent = connection === 'live' ? '● live' : connection;
  el.className = `live ${connection === 'live' ? 'on' : 'off'}`;
  el.dataset.state = connection;
}

/** Replaces what {@code el} holds. */
export function show(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

/** A message for a failed call: the API's message, and what to do about a 403. */
export function failure(error) {
  if (error && error.status === 403) return h('p', { class: 'error' }, `Not allowed with this token: ${error.message}`);
  return h('p', { class: 'error' }, String(error && error.message ? error.message : error));
}
