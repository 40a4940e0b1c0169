// The UI's entry point: which view an address shows, navigation without reloads, and signing in.

import { ApiError, get, session } from './api.js';
import { h, show } from './dom.js';
import { typesView } from './views/types.js';
import { resourcesView } from './views/resources.js';
import { resourceView } from './views/resource.js';
import { controllersView } from './views/controllers.js';
import { clusterView } from './views/cluster.js';
import { editorView } from './views/editor.js';

const routes = [
  { path: /^\/ui\/?$/, nav: 'nav-types', view: typesView },
  { path: /^\/ui\/r\/([^/]+)\/([^/]+)\/([^/]+)$/, nav: 'nav-types', view: resourcesView },
  { path: /^\/ui\/r\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/, nav: 'nav-types', view: resourceView },
  { path: /^\/ui\/controllers$/, nav: 'nav-controllers', view: controllersView },
  { path: /^\/ui\/cluster$/, nav: 'nav-cluster', view: clusterView },
  { path: /^\/ui\/new\/([^/]+)\/([^/]+)\/([^/]+)$/, nav: 'nav-types', view: editorView },
  { path: /^\/ui\/edit\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/, nav: 'nav-types', view: editorView },
];

const main = document.getElementById('view');
let stopView = () => {};
/** Counts renders: one that a newer render overtook while it waited draws nothing. */
let renders = 0;

/** Shows the view of the current address; the previous one stops its watches and timers first. */
async function render() {
  const mine = ++renders;
  stopView();
  stopView = () => {};
  const route = routes.find((r) => r.path.test(location.pathname));
  for (const link of document.querySelectorAll('header nav a')) {
    link.classList.toggle('current', route !== undefined && link.id === route.nav);
  }
  if (!route) {
    show(main, h('h1', {}, 'Not found'), h('p', {}, 'No page here. ', h('a', { href: '/ui/' }, 'See the types.')));
    return;
  }
  const allowed = await signedInOrAnonymous(mine);
  if (!allowed || mine !== renders) {
    return;
  }
  const parts = location.pathname.match(route.path).slice(1).map(decodeURIComponent);
  const query = new URLSearchParams(location.search);
  const context = { navigate, signIn: showSignIn };
  stopView = route.view(main, parts, query, context) || (() => {});
}

/** Goes to {@code path} inside the UI without reloading the page. */
export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

/**
 * Whether views may load: true with ACLs off or a valid token; otherwise shows the sign-in form.
 * /api/types answers any valid token, so it tells both apart.
 */
async function signedInOrAnonymous(mine) {
  try {
    await get('/api/types');
    if (mine === renders) showSession();
    return true;
  } catch (e) {
    if (mine !== renders) return false;
    if (e instanceof ApiError && e.status === 401) {
      showSignIn(session.token() ? 'That token is not valid (any more).' : '');
      return false;
    }
    show(main, h('p', { class: 'error' }, `The agent did not answer: ${e.message}`));
    return false;
  }
}

function showSession() {
  const el = document.getElementById('session');
  if (!session.token()) {
    show(el);
    return;
  }
  show(el, h('span', { class: 'muted' }, 'signed in with a token'),
    h('button', { id: 'sign-out', onclick: () => { session.signOut(); render(); } }, 'Sign out'));
}

function showSignIn(problem) {
  show(document.getElementById('session'));
  const input = h('input', { type: 'password', id: 'token', placeholder: 'token secret (spt_…)', autocomplete: 'off' });
  const form = h('form', {
    onsubmit: (event) => {
      event.preventDefault();
      session.signIn(input.value.trim());
      render();
    },
  }, input, h('button', { type: 'submit', id: 'sign-in' }, 'Sign in'));
  show(main, h('section', { class: 'login' },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'This agent has ACLs on. Sign in with a token secret; you see what the token may read.'),
    problem ? h('p', { class: 'error' }, problem) : null,
    form));
  input.focus();
}

// Links inside the UI change the view without a reload, so watches carry on across pages.
document.addEventListener('click', (event) => {
  const link = event.target.closest('a');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const href = link.getAttribute('href') || (link.href && link.href.baseVal);
  if (href && href.startsWith('/ui/')) {
    event.preventDefault();
    navigate(href);
  }
});
window.addEventListener('popstate', render);
render();
