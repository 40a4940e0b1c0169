// /ui/new/{group}/{version}/{kind} and /ui/edit/{group}/{version}/{kind}/{name}?partition=&namespace=:
// a resource as YAML, checked with the server's dry run and saved with compare-and-swap. The
// server reads and writes the YAML (Content-Type / Accept: application/yaml), so the page parses
// nothing itself.

import { ApiError, get, getYaml, putYaml } from '../api.js';
import { apiPath, failure, h, show, typeName, uiPath } from '../dom.js';

/** A starting document for a new resource: each field of the type's data schema, empty. */
function template(schema) {
  const lines = ['data:'];
  const properties = schema?.properties || {};
  const empty = { string: '""', integer: '0', number: '0', boolean: 'false', array: '[]', object: '{}' };
  for (const [field, def] of Object.entries(properties)) {
    const type = Array.isArray(def.type) ? def.type[0] : def.type;
    lines.push(`  ${field}: ${empty[type] || '{}'}`);
  }
  if (lines.length === 1) lines[0] = 'data: {}';
  return `${lines.join('\n')}\n`;
}

function violationList(error) {
  if (!error.violations.length) return null;
  return h('ul', { id: 'violations' }, error.violations.map((v) => h('li', { 'data-field': v.field, 'data-rule': v.rule || '' },
    h('code', {}, v.field), v.rule ? [' (', h('strong', {}, v.rule), ')'] : '', `: ${v.description}`)));
}

export function editorView(main, [group, version, kind, name], query) {
  const type = { group, groupVersion: version, kind };
  const editing = name !== undefined;
  const nameInput = h('input', { type: 'text', id: 'name', value: name || '', disabled: editing });
  const partitionInput = h('input', { type: 'text', id: 'partition', value: query.get('partition') || '',
    placeholder: 'default', disabled: editing });
  const namespaceInput = h('input', { type: 'text', id: 'namespace', value: query.get('namespace') || '',
    placeholder: 'default', disabled: editing });
  const text = h('textarea', { id: 'yaml', rows: 22, spellcheck: 'false' });
  const result = h('div', { id: 'editor-result' });
  const tenancy = h('span', { class: 'contents' });
  const form = h('form', { class: 'editor', onsubmit: (event) => event.preventDefault() },
    h('div', { class: 'filters' }, h('label', {}, 'Name', nameInput), tenancy),
    text,
    h('div', { class: 'buttons' },
      h('button', { type: 'button', id: 'dry-run', onclick: () => submit(true) }, 'Dry run'),
      h('button', { type: 'button', id: 'save', onclick: () => submit(false) }, 'Save'),
      editing ? h('a', { href: uiPath({ type, tenancy: tenancyOf(), name }) }, 'Back to the resource') : null));
  show(main, h('h1', {}, editing ? 'Edit ' : 'New ', h('a', { href: uiPath({ type }) }, typeName(type)),
    editing ? ` / ${name}` : ''), form, result);

  function tenancyOf() {
    return { partition: partitionInput.value.trim(), namespace: namespaceInput.value.trim() };
  }

  async function load() {
    try {
      if (editing) {
        text.value = await getYaml(apiPath(type, name), tenancyOf());
        return;
      }
      const { types } = await get('/api/types');
      const served = types.find((t) => t.type === typeName(type));
      if (served?.scope !== 'SCOPE_CLUSTER') {
        show(tenancy, h('label', {}, 'Partition', partitionInput),
          served?.scope === 'SCOPE_NAMESPACE' ? h('label', {}, 'Namespace', namespaceInput) : null);
      }
      text.value = template(served?.schema);
    } catch (e) {
      show(result, failure(e));
    }
  }

  async function submit(dryRun) {
    const target = (nameInput.value || '').trim();
    if (!target) {
      show(result, h('p', { class: 'error', id: 'problem' }, 'Give the resource a name.'));
      return;
    }
    show(result, h('p', { class: 'muted' }, dryRun ? 'Checking…' : 'Saving…'));
    const params = { ...tenancyOf(), dry_run: dryRun ? 'true' : '' };
    // A new resource is created only if the name is free; an edit carries the version it was loaded at.
    const extra = editing || dryRun ? {} : { 'If-None-Match': '*' };
    try {
      const answer = await putYaml(apiPath(type, target), params, text.value, extra);
      if (dryRun) {
        show(result, h('p', { class: 'ok', id: 'admitted-note' }, 'Admitted: this is what a save would store.'),
          h('pre', { id: 'admitted' }, answer));
        return;
      }
      const saved = answer.match(/^version: "?([^"\n]+)"?$/m);
      show(result, h('p', { class: 'ok', id: 'saved' }, `Saved${saved ? ` at version ${saved[1]}` : ''}. `,
        h('a', { href: uiPath({ type, tenancy: tenancyOf(), name: target }) }, 'See it')));
      if (editing) text.value = answer;
    } catch (e) {
      if (!(e instanceof ApiError)) {
        show(result, failure(e));
      } else if (e.status === 409 && e.code === 'ABORTED') {
        show(result, h('div', { id: 'conflict', class: 'error' },
          h('p', {}, h('strong', {}, 'Conflict: '), 'the resource changed since this version was loaded; nothing was saved. ',
            e.message),
          h('button', { type: 'button', id: 'reload', onclick: () => load().then(() => show(result)) },
            'Load the current version (drops your edits)')));
      } else if (e.status === 409) {
        show(result, h('div', { id: 'conflict', class: 'error' }, h('p', {}, h('strong', {}, 'Conflict: '), e.message)));
      } else {
        show(result, h('div', { id: 'invalid', class: 'error' },
          h('p', {}, e.status === 403 ? `Not allowed with this token: ${e.message}`
            : e.violations.length ? `Not valid (${e.code}): nothing was stored.` : e.message),
          violationList(e)));
      }
    }
  }

  load();
  return () => {};
}
