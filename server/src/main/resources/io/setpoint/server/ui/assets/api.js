// The agent's HTTP/JSON API (docs/http-api.md), called with the token the user signed in with.

const TOKEN = 'setpoint.token';

/** The token secret of this browser tab, kept in session storage: gone when the tab closes. */
export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  signIn: (secret) => sessionStorage.setItem(TOKEN, secret),
  signOut: () => sessionStorage.removeItem(TOKEN),
};

/**
 * A failed call: the HTTP status and the API's JSON error body ({code, message, field}), with its
 * field violations ({field, rule, description}) when the request was invalid.
 */
export class ApiError extends Error {
  constructor(status, body) {
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || '';
    this.violations = body.violations || [];
  }
}

/** {@code path} with the non-empty {@code params} as its query. */
export function url(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') {
      query.set(key, value);
    }
  }
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

function headers(accept) {
  const out = { Accept: accept };
  const token = session.token();
  if (token) {
    out.Authorization = `Bearer ${token}`;
  }
  return out;
}

async function answer(response) {
  const text = await response.text();
  let body = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text };
  }
  if (!response.ok) {
    throw new ApiError(response.status, body);
  }
  return body;
}

export async function get(path, params) {
  return answer(await fetch(url(path, params), { headers: headers('application/json') }));
}

export async function post(path, params) {
  return answer(await fetch(url(path, params), { method: 'POST', headers: headers('application/json') }));
}

/**
 * A PUT of a YAML document, answered as YAML (the text), or an ApiError from the JSON error body;
 * {@code extra} adds headers (If-None-Match).
 */
export async function putYaml(path, params, yaml, extra = {}) {
  const h = { ...headers('application/yaml'), 'Content-Type': 'application/yaml; charset=utf-8', ...extra };
  const response = await fetch(url(path, params), { method: 'PUT', headers: h, body: yaml });
  if (!response.ok) {
    await answer(response);
  }
  return response.text();
}

/** One resource as YAML text. */
export async function getYaml(path, params) {
  const response = await fetch(url(path, params), { headers: headers('application/yaml') });
  if (!response.ok) {
    await answer(response);
  }
  return response.text();
}

/** Every resource of a list route, following page tokens, up to {@code max}; {more} when cut. */
export async function listAll(path, params, max = 10000) {
  const resources = [];
  let token = '';
  do {
    const page = await get(path, { ...params, page_size: 1000, page_token: token });
    resources.push(...(page.resources || []));
    token = page.nextPageToken || '';
  } while (token && resources.length < max);
  return { resources, more: token !== '' };
}

/**
 * Watches a list route as server-sent events. EventSource cannot send the token, so this reads the
 * stream with fetch. {@code onEvent(kind, event)} gets 'reset' before each snapshot, then 'upsert',
 * 'delete' and 'end_of_snapshot'; {@code onState('live' | 'reconnecting' | 'failed', error)} follows
 * the connection. After a drop it resumes from the last event id, or starts over when that is too
 * old. Returns the function that stops it.
 */
export function watch(path, params, onEvent, onState) {
  const abort = new AbortController();
  let lastId = null;
  let stopped = false;
  (async () => {
    let delay = 500;
    while (!stopped) {
      try {
        const h = headers('text/event-stream');
        if (lastId) {
          h['Last-Event-ID'] = lastId;
        }
        const response = await fetch(url(path, { ...params, watch: 'true' }), { headers: h, signal: abort.signal });
        if (!response.ok) {
          await answer(response);
        }
        if (!lastId) {
          onEvent('reset', null);
        }
        onState('live');
        delay = 500;
        await readEvents(response.body, (event) => {
          if (event.id) {
            lastId = event.id;
          }
          const data = event.data ? JSON.parse(event.data) : {};
          if (event.name === 'error') {
            throw new ApiError(503, data);
          }
          onEvent(event.name, data);
        });
      } catch (e) {
        if (stopped) {
          return;
        }
        if (e instanceof ApiError && e.code === 'OUT_OF_RANGE') {
          lastId = null; // compacted past our revision: take a new snapshot
        } else if (e instanceof ApiError && e.status >= 400 && e.status < 500) {
          onState('failed', e);
          return;
        }
        onState('reconnecting', e);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10000);
    }
  })();
  return () => {
    stopped = true;
    abort.abort();
  };
}

async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { name: 'message', data: '', id: null };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) {
          continue; // a comment (keep-alive) or a malformed line
        }
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.name = text;
        else if (field === 'data') event.data += (event.data ? '\n' : '') + text;
        else if (field === 'id') event.id = text;
      }
      onEvent(event);
    }
  }
}
