// The envdata operations console: plain DOM code, no build step, nothing from elsewhere.
// Each page polls its JSON API every few seconds while the tab is visible, and redraws only when
// the answer changed.
import uPlot from '/assets/uplot.js';

const POLL_MS = 3000;
const view = document.getElementById('view');
const updated = document.getElementById('updated');
const sessionLine = document.getElementById('session');
const quotaHeader = document.getElementById('quota-header');

/** Builds an element: `h('td', { class: 'num' }, '12')`. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A table heading; `className` `num` right-aligns a numeric column. */
const th = (text, className) => h('th', { class: className }, text);

/** A table with one row of `headings` (`th`) above `rows`. */
function table(id, headings, rows) {
  return h('table', { id }, h('thead', {}, h('tr', {}, headings)), h('tbody', {}, rows));
}

async function getJson(path) {
  const response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  const text = await response.text();
  if (response.status === 401) {
    location.href = `/login?next=${encodeURIComponent(location.pathname + location.hash)}`;
  }
  if (!response.ok) throw new Error(JSON.parse(text).error ?? `${path}: ${response.status}`);
  return { text, body: JSON.parse(text) };
}

const number = new Intl.NumberFormat('en');
const fmt = (n) => number.format(Math.round(n));
const rate = (n) => (n >= 10 ? n.toFixed(0) : n.toFixed(1));
const when = (iso) => (iso ? iso.slice(0, 16).replace('T', ' ') : '—');

/**
 * What holds a run, as `envdata status` says it (src/cli/format-waiting.ts): `waiting: quota
 * (day) until 2026-11-27 00:00 UTC`, `waiting: paused — envdata resume 12`; '' when nothing does.
 */
function waitingText(waiting) {
  if (!waiting) return '';
  const iso = waiting.until;
  const until = iso
    ? ` until ${iso.slice(0, 10)} ${iso.slice(11, 16)}${iso.slice(17, 19) === '00' ? '' : `:${iso.slice(17, 19)}`} UTC`
    : '';
  return `waiting: ${waiting.reason}${until}${waiting.hint ? ` — ${waiting.hint}` : ''}`;
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} d`;
}

const SEGMENTS = [
  ['done', 'done'],
  ['missingUpstream', 'missing upstream'],
  ['running', 'running'],
  ['queued', 'queued'],
  ['failed', 'failed'],
  ['dropped', 'dropped (cancelled)'],
];

function progressBar(run) {
  const total = Math.max(1, run.total);
  return h(
    'div',
    { class: 'bar', role: 'img', 'aria-label': barLabel(run) },
    SEGMENTS.map(([key]) =>
      run.chunks[key] > 0
        ? h('span', {
            class: key,
            style: `width:${(100 * run.chunks[key]) / total}%`,
            title: `${run.chunks[key]} ${key}`,
          })
        : null,
    ),
  );
}

function barLabel(run) {
  return SEGMENTS.map(([key, label]) => `${run.chunks[key]} ${label}`).join(', ');
}

function barLegend() {
  return h(
    'div',
    { class: 'legend' },
    SEGMENTS.map(([key, label]) => h('span', {}, h('i', { class: `swatch-${key}` }), label)),
  );
}

/** `5 chunk(s) dropped, never fetched`: what cancelling a run left undone. */
function droppedText(run) {
  return `${fmt(run.chunks.dropped)} chunk(s) dropped, never fetched`;
}

function doneOf(run) {
  return run.chunks.done + run.chunks.missingUpstream;
}

// ---- pages -------------------------------------------------------------------------------

const pages = {
  runs: {
    api: () => '/api/runs',
    render({ runs }) {
      if (runs.length === 0) {
        return [
          h('h1', {}, 'Runs'),
          h('p', {}, 'No run yet: start one with ', h('code', {}, 'envdata backfill'), '.'),
        ];
      }
      return [
        h('h1', {}, 'Runs'),
        barLegend(),
        table(
          'runs',
          [
            th('Run'),
            th('Kind'),
            th('State'),
            th('Progress'),
            th('Chunks', 'num'),
            th('Rows', 'num'),
            th('Calls/s', 'num'),
            th('ETA', 'num'),
            th('Started (UTC)'),
          ],
          runs.map((run) =>
            h(
              'tr',
              {
                'data-run-id': run.runId,
                'data-state': run.status,
                'data-done': doneOf(run),
                'data-failed': run.chunks.failed,
                'data-dropped': run.chunks.dropped,
                'data-total': run.total,
              },
              h('td', {}, h('a', { href: `#/runs/${run.runId}` }, `#${run.runId}`)),
              h('td', {}, run.kind),
              h(
                'td',
                {},
                h('span', { class: `state ${run.status}` }, run.status),
                run.chunks.dropped > 0
                  ? h('div', { class: 'dropped-count muted' }, droppedText(run))
                  : null,
                run.waiting ? h('div', { class: 'waiting muted' }, waitingText(run.waiting)) : null,
              ),
              h('td', {}, progressBar(run)),
              h('td', { class: 'num' }, `${fmt(doneOf(run))} / ${fmt(run.total)}`),
              h('td', { class: 'num' }, fmt(run.rows)),
              h('td', { class: 'num' }, rate(run.callsPerSecond)),
              h('td', { class: 'num' }, duration(run.etaSeconds)),
              h('td', {}, when(run.createdAt)),
            ),
          ),
        ),
      ];
    },
  },

  run: {
    api: (id) => `/api/runs/${encodeURIComponent(id)}`,
    render({ run, progress, failures, scope }) {
      const failed = run.chunks.failed;
      return [
        h('p', {}, h('a', { href: '#/runs' }, '← Runs')),
        h(
          'h1',
          {},
          `Run #${run.runId} · ${run.kind} `,
          h('span', { class: `state ${run.status}`, id: 'run-state' }, run.status),
        ),
        barLegend(),
        progressBar(run),
        h(
          'table',
          { id: 'run-summary' },
          h(
            'tbody',
            {},
            scope
              ? row('Datasets', scope.datasets.join(', ') || '—', { id: 'run-datasets' })
              : null,
            scope
              ? row(
                  'Range (UTC)',
                  scope.from
                    ? `${when(scope.from)} – ${when(scope.to)}`
                    : `up to ${when(scope.to)}`,
                  { id: 'run-range' },
                )
              : null,
            scope
              ? row(
                  'Locations',
                  `${fmt(scope.locations)}${scope.locationNames.length > 0 ? `: ${scope.locationNames.join(', ')}${scope.locations > scope.locationNames.length ? ', …' : ''}` : ''}`,
                  { id: 'run-locations' },
                )
              : null,
            row('Chunks', `${fmt(doneOf(run))} of ${fmt(run.total)} done`, {
              'data-done': doneOf(run),
              'data-total': run.total,
            }),
            row('Failed', fmt(failed), { 'data-failed': failed }),
            run.status === 'cancelled'
              ? row('Dropped', droppedText(run), { 'data-dropped': run.chunks.dropped })
              : null,
            row('Rows landed', fmt(run.rows)),
            row(
              'Calls',
              `${fmt(run.calls)} (${rate(run.callsPerSecond)}/s now)${scope?.cost ? ` · ${scope.cost}` : ''}`,
              { id: 'run-calls' },
            ),
            row('ETA', duration(run.etaSeconds)),
            run.waiting ? row('Waiting', waitingText(run.waiting), { id: 'run-waiting' }) : null,
            row('Missing upstream', `${fmt(progress.missingHours)} hour(s)`),
            row('Quarantined', `${fmt(progress.recordsQuarantined)} record(s)`),
            row('Started', `${when(run.createdAt)} UTC`),
            row('Finished', run.finishedAt ? `${when(run.finishedAt)} UTC` : '—'),
            run.errorMessage ? row('Error', `${run.errorCode}: ${run.errorMessage}`) : null,
          ),
        ),
        h('h2', {}, 'Failures by error'),
        failures.length === 0
          ? h('p', { class: 'muted', id: 'no-failures' }, 'No failed chunk.')
          : table(
              'failures',
              [th('Code'), th('Message'), th('Chunks', 'num'), th('First ones')],
              failures.map((g) =>
                h(
                  'tr',
                  { 'data-code': g.code, 'data-chunks': g.chunks },
                  h('td', {}, g.code),
                  h('td', {}, g.message),
                  h('td', { class: 'num' }, fmt(g.chunks)),
                  h(
                    'td',
                    {},
                    g.examples.map((c) =>
                      h(
                        'div',
                        {},
                        `${c.location} ${c.dataset} ${when(c.from)}–${when(c.to)} (${c.attempts} attempt(s))`,
                        c.traceUrl
                          ? [
                              ' ',
                              h(
                                'a',
                                { class: 'trace', href: c.traceUrl, title: c.traceId },
                                'trace',
                              ),
                            ]
                          : c.traceId
                            ? ` trace ${c.traceId}`
                            : null,
                      ),
                    ),
                  ),
                ),
              ),
            ),
        actions(run),
      ];
    },
  },

  coverage: {
    api: () => {
      const q = new URLSearchParams({
        dataset: coverageState.dataset,
        bucket: coverageState.bucket,
        page: String(coverageState.page),
        pageSize: String(coverageState.pageSize),
      });
      return `/api/coverage?${q}`;
    },
    render(grid) {
      const pagesCount = Math.max(1, Math.ceil(grid.locations / grid.pageSize));
      const states = session?.states ?? {};
      return [
        h('h1', {}, 'Coverage'),
        h(
          'div',
          { class: 'controls' },
          h(
            'label',
            {},
            'Dataset ',
            select(
              'dataset',
              (session?.datasets ?? ['pollen', 'weather']).map((d) => [d, d]),
              coverageState.dataset,
            ),
          ),
          h(
            'label',
            {},
            'Cells ',
            select(
              'bucket',
              [
                ['month', 'months'],
                ['year', 'years'],
              ],
              coverageState.bucket,
            ),
          ),
          h(
            'label',
            {},
            'Locations per page ',
            select(
              'pageSize',
              [50, 100, 250, 1000].map((n) => [String(n), String(n)]),
              String(coverageState.pageSize),
            ),
          ),
          h(
            'button',
            {
              class: 'secondary',
              disabled: grid.page <= 1,
              onclick: () => changeCoverage({ page: grid.page - 1 }),
            },
            '← Previous',
          ),
          h('span', { id: 'coverage-page' }, `page ${grid.page} of ${pagesCount}`),
          h(
            'button',
            {
              class: 'secondary',
              disabled: grid.page >= pagesCount,
              onclick: () => changeCoverage({ page: grid.page + 1 }),
            },
            'Next →',
          ),
          h(
            'span',
            { class: 'muted' },
            `${fmt(grid.locations)} locations, ${grid.fromYear}–${grid.toYear}`,
          ),
        ),
        h(
          'div',
          { class: 'legend', id: 'coverage-legend' },
          Object.entries(states).map(([letter, label]) =>
            h('span', {}, h('i', { class: letter }), label),
          ),
        ),
        coverageGrid(grid, states),
      ];
    },
  },

  freshness: {
    api: () => '/api/freshness',
    render(board) {
      const shown = board.rows.slice(0, 500);
      return [
        h('h1', {}, 'Freshness'),
        h(
          'p',
          {},
          `${fmt(board.stale)} of ${fmt(board.rows.length)} location/dataset pair(s) lag more than ${board.maxLagHours} h (ENVDATA_FRESHNESS_MAX_LAG); stale first. The lag runs from the end of the last hour landed to now, as envdata status and analytics.dataset_freshness count it; a hole in the past (a cancelled run) is a hole in the history, drawn on Coverage.`,
        ),
        table(
          'freshness',
          [th('Location'), th('Dataset'), th('Last hour landed (UTC)'), th('Lag', 'num'), th('')],
          shown.map((f) =>
            h(
              'tr',
              { 'data-location-id': f.locationId, 'data-dataset': f.dataset },
              h('td', {}, f.name),
              h('td', {}, f.dataset),
              h('td', {}, f.knownEmpty ? 'known empty' : f.lastHour ? when(f.lastHour) : 'never'),
              h(
                'td',
                { class: 'num' },
                f.lagHours === null ? '—' : duration(Math.round(f.lagHours * 3600)),
              ),
              h(
                'td',
                {},
                f.stale
                  ? h('span', { class: 'stale' }, 'stale')
                  : f.knownEmpty
                    ? h('span', { title: 'every hour asked was answered "no data"' }, 'no data')
                    : 'fresh',
              ),
            ),
          ),
        ),
        board.rows.length > shown.length
          ? h('p', { class: 'muted' }, `… and ${fmt(board.rows.length - shown.length)} more`)
          : null,
      ];
    },
  },

  upstream: {
    api: () => '/api/upstream',
    render(board) {
      return [
        h('h1', {}, 'Upstream'),
        h(
          'p',
          {},
          "The shapes the service's answers have had, per endpoint, oldest first, with what changed from the one before (docs/drift.md). Accept one with: envdata upstream accept SHAPE",
        ),
        board.shapes.length === 0
          ? h('p', { class: 'muted', id: 'upstream-empty' }, 'No answer recorded yet.')
          : table(
              'upstream',
              [
                th('Endpoint'),
                th('Shape'),
                th('Status'),
                th('Answers'),
                th('Last seen (UTC)'),
                th('Changes'),
              ],
              board.shapes.map((s) =>
                h(
                  'tr',
                  { 'data-shape': s.shape, 'data-status': s.status },
                  h('td', {}, s.endpoint),
                  h('td', {}, s.shape),
                  h(
                    'td',
                    {},
                    s.status === 'not accepted'
                      ? h('span', { class: 'stale' }, s.status)
                      : s.status,
                  ),
                  h('td', {}, fmt(s.answers)),
                  h('td', {}, when(s.lastSeenAt)),
                  h('td', {}, s.changes.length > 0 ? s.changes.join('; ') : s.envelope),
                ),
              ),
            ),
      ];
    },
  },

  alerts: {
    api: () => '/api/alerts',
    render(board) {
      return [
        h('h1', {}, 'Alerts'),
        h(
          'p',
          {},
          board.targets.length > 0
            ? `Posted to ${board.targets.join(', ')} (ENVDATA_NOTIFY_URL). The 50 most recent, newest first.`
            : 'ENVDATA_NOTIFY_URL is not set: events wait in the outbox. The 50 most recent, newest first.',
        ),
        board.events.length === 0
          ? h(
              'p',
              { class: 'muted', id: 'alerts-empty' },
              'No alert yet: nothing has needed a person.',
            )
          : table(
              'alerts',
              [th('When (UTC)'), th('Event'), th('Message'), th('Delivery')],
              board.events.map((e) =>
                h(
                  'tr',
                  {
                    'data-id': e.id,
                    'data-event': e.event,
                    ...(e.resolvedBy && { 'data-resolved-by': e.resolvedBy.id, class: 'muted' }),
                  },
                  h('td', {}, when(e.at)),
                  h(
                    'td',
                    {},
                    e.event,
                    e.resolvedBy ? ` (resolved ${when(e.resolvedBy.at)})` : '',
                    e.resolves ? ` (resolves the breach of ${when(e.resolves.at)})` : '',
                  ),
                  h('td', {}, e.text),
                  h(
                    'td',
                    {},
                    e.pending > 0
                      ? h(
                          'span',
                          { class: 'stale', title: e.lastError ?? '' },
                          `pending${e.lastError ? ` (${e.lastError})` : ''}`,
                        )
                      : e.dropped > 0
                        ? h('span', { class: 'stale' }, 'dropped')
                        : e.delivered > 0
                          ? 'delivered'
                          : 'no target',
                  ),
                ),
              ),
            ),
      ];
    },
  },

  'rate-limit': {
    api: () => '/api/rate-limit',
    render(data) {
      const chart = h('div', { class: 'chart', id: 'rate-chart' });
      const last = data.callsPerSecond.at(-2) ?? 0;
      const throttled = data.throttled.reduce((a, b) => a + b, 0);
      queueMicrotask(() => drawRateChart(chart, data));
      return [
        h('h1', {}, 'Quota & rate'),
        h(
          'p',
          {},
          `Calls per second of every worker (per minute, last hour) against the configured limit `,
          h('code', {}, data.limits.join(', ') || 'off'),
          `: ${rate(last)}/s in the last full minute; ${fmt(throttled)} answer(s) 429 in the hour.`,
        ),
        data.pausedUntil
          ? h(
              'p',
              { class: 'notice', id: 'pause' },
              `Every worker is paused until ${when(data.pausedUntil)} UTC (the service throttled, or the call budget is spent); `,
              h('code', {}, 'envdata resume'),
              ' ends it now.',
            )
          : null,
        h('div', { class: 'rate-row' }, chart, quotaGauges(data.quota ?? [])),
      ];
    },
  },

  workers: {
    api: () => '/api/workers',
    render(data) {
      const alive = data.workers.filter((w) => w.alive);
      const busy = alive.reduce((sum, w) => sum + (w.busy ?? 0), 0);
      const slots = alive.reduce((sum, w) => sum + w.concurrency, 0);
      const ago = (iso) => duration(Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000)));
      return [
        h('h1', {}, 'Workers'),
        h(
          'p',
          {},
          `${fmt(alive.length)} worker(s) alive, busy with ${fmt(busy)} of ${fmt(slots)} job slots. `,
          `Each reports itself every ${duration(data.heartbeatMs / 1000)} (ENVDATA_WORKER_HEARTBEAT), busy or idle; `,
          'silent for three of these, it is presumed gone.',
        ),
        table(
          'workers',
          [
            th('Host'),
            th('Pid', 'num'),
            th('Busy', 'num'),
            th('Last heartbeat'),
            th('Queue connection'),
            th(''),
          ],
          data.workers.map((w) =>
            h(
              'tr',
              { 'data-pid': w.pid },
              h('td', {}, w.host),
              h('td', { class: 'num' }, w.pid),
              h('td', { class: 'num' }, w.busy === null ? '—' : `${w.busy} / ${w.concurrency}`),
              h('td', {}, w.lastHeartbeatAt ? `${ago(w.lastHeartbeatAt)} ago` : 'none'),
              h(
                'td',
                {},
                w.connected
                  ? `open ${duration(w.ageSeconds)}`
                  : 'closed (killed, or host unreachable)',
              ),
              h(
                'td',
                {},
                w.alive
                  ? 'alive'
                  : h(
                      'span',
                      {
                        class: 'stale',
                        title: 'an envdata without heartbeats, or its event loop is stuck',
                      },
                      'no heartbeat',
                    ),
              ),
            ),
          ),
        ),
      ];
    },
  },
};

// ---- the quota gauge, beside the rate chart ------------------------------------------------

/** One bar per configured quota window: calls used of the limit, the cost, the reset. */
function quotaGauges(windows) {
  if (windows.length === 0) return null;
  return h(
    'div',
    { class: 'quota-gauges', id: 'quota-gauge' },
    h('h2', {}, 'Quota'),
    ...windows.map((w) => {
      const share = w.limit > 0 ? Math.min(1, w.used / w.limit) : 0;
      const spent = share >= 1 || w.refusedByService;
      const fill = h('span', { class: spent ? 'fill full' : 'fill' });
      fill.style.width = `${(share * 100).toFixed(1)}%`;
      const detail = [
        w.refusedByService ? 'refused by the service (quota exceeded)' : null,
        w.limitedBy === 'budget' ? 'the budget’s calls' : null,
        w.reserve > 0 ? `${fmt(w.reserve)} kept for the sync` : null,
        w.cost !== null ? `${w.cost} spent` : null,
        w.budget !== null ? `budget ${w.budget}` : null,
        `resets ${when(w.resetsAt)} UTC`,
      ].filter((x) => x !== null);
      return h(
        'div',
        {
          class: 'quota-window',
          id: `quota-gauge-${w.window}`,
          'data-used': String(w.used),
          'data-limit': String(w.limit),
        },
        h(
          'div',
          { class: 'quota-label' },
          h('b', {}, w.window),
          ` ${fmt(w.used)} / ${fmt(w.limit)} calls`,
        ),
        h('div', { class: 'quota-bar' }, fill),
        h('div', { class: 'muted' }, detail.join(' · ')),
      );
    }),
  );
}

/**
 * The quota and the money on every page, in the header: `day 312 / 1,000 · month €4.10 of
 * €5.00`, red once a window is used up; hidden without a quota or budget.
 */
async function refreshQuotaHeader() {
  const { quota } = (await getJson('/api/quota')).body;
  quotaHeader.hidden = quota.length === 0;
  const full = quota.some((w) => w.used >= w.limit);
  quotaHeader.classList.toggle('full', full);
  quotaHeader.textContent = quota
    .map((w) =>
      w.budget !== null && w.cost !== null
        ? `${w.window} ${w.cost} of ${w.budget}`
        : `${w.window} ${fmt(w.used)} / ${fmt(w.limit)}${w.cost !== null ? ` (${w.cost})` : ''}`,
    )
    .join(' · ');
  quotaHeader.title = full
    ? 'a quota window is used up: work waits for its reset (see Quota & rate)'
    : 'calls and money used of the quota and budget (see Quota & rate)';
}

function row(label, value, attrs = {}) {
  return h('tr', attrs, h('th', {}, label), h('td', {}, value));
}

function select(name, options, current) {
  return h(
    'select',
    { name, onchange: (e) => changeCoverage({ [name]: e.target.value, page: 1 }) },
    options.map(([value, label]) => h('option', { value, selected: value === current }, label)),
  );
}

// ---- the run page's actions ----------------------------------------------------------------

function actions(run) {
  const box = h('div', { class: 'controls', id: 'run-actions' });
  const mode = session?.actions;
  const message = h('span', { id: 'action-message', role: 'status' }, actionNote);
  const button = (label, path, enabled) =>
    h(
      'button',
      {
        disabled: mode !== 'enabled' || !enabled,
        onclick: async (e) => {
          e.target.disabled = true;
          actionNote = await post(path);
          await refresh(true);
        },
      },
      label,
    );
  box.append(
    button('Retry failed', `/api/runs/${run.runId}/retry-failed`, run.chunks.failed > 0),
    button(
      'Resume',
      `/api/runs/${run.runId}/resume`,
      ['paused', 'stopped', 'running'].includes(run.status),
    ),
  );
  if (mode === 'disabled') {
    box.append(
      h(
        'span',
        { class: 'notice' },
        'Actions are disabled: set ENVDATA_CONSOLE_TOKEN and restart envdata serve.',
      ),
    );
  } else if (mode === 'sign-in') {
    box.append(
      h(
        'a',
        { href: `/login?next=${encodeURIComponent(`/${location.hash}`)}`, id: 'sign-in' },
        'Sign in to retry or resume',
      ),
    );
  }
  box.append(message);
  return box;
}

let actionNote = '';

async function post(path) {
  const response = await fetch(path, { method: 'POST', credentials: 'same-origin' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) return body.error ?? `failed: ${response.status}`;
  if (body.requeued !== undefined) return `${body.requeued} failed chunk(s) re-queued`;
  return `${body.dispatched ?? 0} job(s) dispatched`;
}

// ---- the coverage grid ---------------------------------------------------------------------

const coverageState = { dataset: 'pollen', bucket: 'month', page: 1, pageSize: 50 };

/** The grid's selection, from the address (`#/coverage?dataset=weather&bucket=year&page=2`). */
function readCoverageState(query) {
  const q = new URLSearchParams(query);
  const number = (name, fallback) => {
    const n = Number(q.get(name));
    return Number.isInteger(n) && n > 0 ? n : fallback;
  };
  coverageState.dataset = q.get('dataset') ?? 'pollen';
  coverageState.bucket = q.get('bucket') === 'year' ? 'year' : 'month';
  coverageState.page = number('page', 1);
  coverageState.pageSize = number('pageSize', 50);
}

/** A new selection goes into the address: it can be bookmarked, shared and reloaded. */
function changeCoverage(change) {
  const next = { ...coverageState, ...change };
  location.hash = `#/coverage?${new URLSearchParams({
    dataset: next.dataset,
    bucket: next.bucket,
    page: String(next.page),
    pageSize: String(next.pageSize),
  })}`;
}

/** The grid opens on the present (its right end); a redraw keeps where the reader scrolled to. */
function keepCoverageScroll(previous) {
  const grid = document.getElementById('coverage-grid');
  if (!grid) return;
  grid.scrollLeft = previous ?? grid.scrollWidth;
}

function coverageGrid(grid, states) {
  const labels = grid.buckets.map((b) => (grid.bucket === 'year' ? b.slice(0, 4) : b.slice(0, 7)));
  const axis = h('div', { class: 'axis' });
  const cellWidth = grid.bucket === 'year' ? 23 : 10;
  // A year's number above its first cell, every fifth year when they are many.
  const step = grid.toYear - grid.fromYear >= 10 ? 5 : 1;
  for (const label of labels) {
    const year = Number(label.slice(0, 4));
    const first = grid.bucket === 'year' || label.endsWith('-01');
    axis.append(
      h('span', { style: `width:${cellWidth - 1}px` }, first && year % step === 0 ? year : ''),
    );
  }
  return h(
    'div',
    { class: `grid ${grid.bucket}`, id: 'coverage-grid' },
    axis,
    grid.rows.map((r) =>
      h(
        'div',
        { class: 'row', 'data-location-id': r.locationId },
        h('span', { class: 'name', title: r.name }, r.name),
        h(
          'span',
          { class: 'cells' },
          [...r.cells].map((letter, i) =>
            h('i', {
              class: `cell-${letter}`,
              'data-bucket': labels[i],
              'data-state': letter,
              title: `${r.name} ${labels[i]}: ${states[letter] ?? letter}`,
            }),
          ),
        ),
      ),
    ),
  );
}

// ---- the rate chart ------------------------------------------------------------------------

let plot;

/** `2026-11-28 14:05` (UTC) of a time in seconds. */
const utcMinute = (ts) => when(new Date(ts * 1000).toISOString());

function drawRateChart(target, data) {
  plot?.destroy();
  const limit = data.minutes.map(() => data.limitPerSecond);
  plot = new uPlot(
    {
      width: Math.min(1100, Math.max(400, view.clientWidth - 20)),
      height: 320,
      scales: { x: { time: true }, throttled: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      // Every time on the console is UTC, 24-hour, as in the CLI and the logs.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
      series: [
        { label: 'UTC', value: (_u, ts) => (ts == null ? '—' : `${utcMinute(ts)} UTC`) },
        { label: 'calls/s', stroke: '#3b82f6', width: 2, fill: '#3b82f622' },
        { label: 'limit (calls/s)', stroke: '#0f172a', dash: [6, 4], width: 1 },
        { label: '429s per minute', stroke: '#dc2626', width: 2, scale: 'throttled' },
      ],
      axes: [
        { values: (_u, splits) => splits.map((ts) => utcMinute(ts).slice(11)) },
        { label: 'calls/s' },
        { side: 1, scale: 'throttled', label: '429/min' },
      ],
    },
    [data.minutes, data.callsPerSecond, limit, data.throttled],
    target,
  );
}

// ---- routing and polling -------------------------------------------------------------------

let session;
let lastText = '';
let lastRoute = '';

function route() {
  const [path, query = ''] = location.hash.split('?');
  const [, page = 'runs', id] = path.split('/');
  if (page === 'runs' && id) return { page: 'run', id };
  if (page === 'coverage') readCoverageState(query);
  return { page: pages[page] ? page : 'runs' };
}

async function refresh(force = false) {
  const current = route();
  const key = location.hash || '#/runs';
  try {
    if (!session || force) session = (await getJson('/api/session')).body;
    sessionLine.textContent =
      session.actions === 'enabled'
        ? 'signed in: actions enabled'
        : session.actions === 'sign-in'
          ? 'read-only (sign in to act)'
          : 'read-only (no ENVDATA_CONSOLE_TOKEN)';
    const page = pages[current.page];
    const [{ text, body }] = await Promise.all([
      getJson(page.api(current.id)),
      refreshQuotaHeader().catch(() => (quotaHeader.hidden = true)),
    ]);
    updated.textContent = `updated ${new Date().toISOString().slice(11, 19)} UTC`;
    if (!force && text === lastText && key === lastRoute) return;
    const scrolled =
      key === lastRoute ? document.getElementById('coverage-grid')?.scrollLeft : undefined;
    lastText = text;
    lastRoute = key;
    view.replaceChildren(...page.render(body).flat().filter(Boolean));
    keepCoverageScroll(scrolled);
  } catch (error) {
    view.replaceChildren(h('p', { class: 'error', role: 'alert' }, String(error.message ?? error)));
    lastText = '';
  }
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle(
      'active',
      a.dataset.page === (current.page === 'run' ? 'runs' : current.page),
    );
  }
}

let timer;
function schedule() {
  clearInterval(timer);
  if (document.visibilityState === 'visible') timer = setInterval(() => void refresh(), POLL_MS);
}

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void refresh();
  schedule();
});
window.addEventListener('hashchange', () => {
  actionNote = '';
  void refresh(true);
});
void refresh(true);
schedule();
