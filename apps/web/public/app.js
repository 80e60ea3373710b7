// The Interlock web page: sign in, then the inbox, threads, timelines and the audit trail,
// kept live by Server-Sent Events (every change refetches what is shown).
/* global document, location, window, EventSource */
import { api, ApiError, messageOf, setCsrfToken } from './api.js';
import { AuditView } from './audit-view.js';
import { ChatView } from './chat-view.js';
import { h } from './dom.js';
import { InboxView } from './inbox-view.js';
import { ThreadsView, TimelineView } from './threads-view.js';

/** @typedef {import('./api.js').LiveChange} LiveChange */
/** @typedef {import('./api.js').Session} Session */
/** @typedef {{ token: boolean, oidc?: { loginUrl: string, label: string } }} AuthMethods GET /api/auth/methods. */
/** @typedef {InboxView | ThreadsView | TimelineView | AuditView | ChatView} View */

/**
 * A part of index.html the page cannot run without.
 * @param {string} selector
 */
function pagePart(selector) {
  const element = document.querySelector(selector);
  if (element === null) throw new Error(`index.html has no ${selector}`);
  return element;
}

const main = pagePart('main');
const whoami = pagePart('.whoami');
const liveBadge = pagePart('.live');
const notices = pagePart('.notices');

/** @type {import('./dom.js').Notify} */
function notify(message, tone = 'info') {
  notices.prepend(h('li', { class: `notice ${tone}` }, message));
  while (notices.children.length > 4) notices.lastElementChild?.remove();
}

const views = {
  inbox: new InboxView({ notify }),
  threads: new ThreadsView({ notify }),
  timeline: new TimelineView({ notify }),
  audit: new AuditView(),
  chat: new ChatView({ notify }),
};
/** @type {View} */
let current = views.inbox;
let me = '';

async function route() {
  const [, name = 'inbox', id] = location.hash.replace(/^#\/?/, '#/').split('/');
  const view =
    name === 'threads' && id
      ? views.timeline
      : ((Object.hasOwn(views, name) ? /** @type {Record<string, View>} */ (views)[name] : undefined) ?? views.inbox);
  const argument = id === undefined ? '' : decodeURIComponent(id);
  /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll('nav a')).forEach((link) =>
    link.classList.toggle('active', link.dataset.view === (view === views.timeline ? 'threads' : name)),
  );
  current = view;
  main.replaceChildren(view.element);
  try {
    if (view === views.timeline || view === views.chat) await view.show(argument);
    else await view.refresh();
  } catch (error) {
    handleError(error);
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let refreshTimer;
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => current.refresh().catch(handleError), 120);
}

/** @param {unknown} error */
function handleError(error) {
  if (error instanceof ApiError && error.status === 401) return void showSignIn(error.message);
  notify(messageOf(error), 'error');
}

function connectLive() {
  const source = new EventSource('/api/events');
  source.addEventListener('open', () => {
    liveBadge.textContent = '● live';
    liveBadge.classList.add('on');
    scheduleRefresh();
  });
  source.addEventListener('error', () => {
    liveBadge.textContent = '○ reconnecting';
    liveBadge.classList.remove('on');
  });
  source.addEventListener('change', (event) => {
    /** @type {LiveChange} */
    const change = JSON.parse(/** @type {MessageEvent<string>} */ (event).data);
    // A chat's changes matter only to the chat view showing it.
    if (change.kind === 'chat' && (current !== views.chat || change.chatId !== views.chat.chatId)) return;
    if (
      change.reason === 'answered' &&
      change.responder !== undefined &&
      change.responder !== `web:${me}` &&
      current === views.inbox &&
      change.interactionId !== undefined &&
      views.inbox.cards.has(change.interactionId)
    ) {
      notify(`${change.responder} answered an interaction you were looking at.`, 'warn');
    }
    scheduleRefresh();
  });
}

/** @param {string} [message] */
async function showSignIn(message = '') {
  whoami.textContent = '';
  const methods = /** @type {AuthMethods} */ (await api('/api/auth/methods').catch(() => ({ token: true })));
  const sso = methods.oidc
    ? h(
        'p',
        null,
        h('a', { class: 'button primary sso', href: methods.oidc.loginUrl }, methods.oidc.label),
        h('br'),
        'Or, with an approver token:',
      )
    : null;
  const token = h('input', {
    type: 'password',
    name: 'token',
    class: 'token',
    autocomplete: 'current-password',
    'aria-label': 'Approver token',
    placeholder: 'the token printed at first start',
  });
  const error = h('p', { class: 'card-error', role: 'alert' }, message);
  main.replaceChildren(
    h(
      'section',
      { class: 'view sign-in' },
      h('h1', null, 'Sign in'),
      sso,
      h(
        'p',
        null,
        'Use the approver token that interlock-web printed when it first started (or one from your approvers file).',
      ),
      h(
        'form',
        {
          onsubmit: async (event) => {
            event.preventDefault();
            try {
              const session = /** @type {Session} */ (
                await api('/api/session', { method: 'POST', body: { token: token.value.trim() } })
              );
              await start(session);
            } catch (failure) {
              error.textContent = messageOf(failure);
            }
          },
        },
        token,
        h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
      ),
      error,
    ),
  );
  token.focus();
}

let started = false;

/** @param {Session} session */
async function start(session) {
  me = session.approver;
  setCsrfToken(session.csrfToken);
  whoami.replaceChildren(
    `Signed in as ${me} `,
    h(
      'button',
      {
        type: 'button',
        class: 'sign-out',
        onclick: async () => {
          await api('/api/session', { method: 'DELETE' }).catch(() => undefined);
          location.reload();
        },
      },
      'Sign out',
    ),
  );
  // Signing in again after the session ended: the live feed reconnects by itself.
  if (started) return route();
  started = true;
  connectLive();
  window.addEventListener('hashchange', route);
  setInterval(() => views.inbox.tick(), 1000);
  await route();
}

/** @type {Promise<Session>} */ (api('/api/session')).then(start, (error) =>
  error instanceof ApiError && error.status === 401 ? void showSignIn() : notify(messageOf(error), 'error'),
);
