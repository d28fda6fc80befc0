/**
 * Progress of an apply for people. On a TTY: one line redrawn in place (done/total, operations
 * per second, a wait for the rate budget with the time it has left), with failures printed above
 * it. Otherwise: one quiet line per finished change, and one when a wait for the rate budget
 * starts. Always a closing summary. With JSON logs, the same as records (`createProgressLog`).
 * Formatting is pure; the writer is a thin shell over a stream and a clock.
 */
import { show } from '../support/terminal.js';
import type { Logger } from 'pino';
import type { ApiHooks } from '../api/port.js';
import {
  changeKey,
  formatOutcomes,
  outcomeOf,
  withOutcome,
  type Change,
  type ChangeKey,
  type ChangeResult,
} from '../model/plan.js';
import {
  emptySummary,
  PAST_TENSE,
  type ApplyEvent,
  type ApplySummary,
  type ChangeFinishedEvent,
} from '../apply/events.js';
import { remainingSeconds } from '../apply/estimate.js';
import type { ApplyEstimate } from '../model/estimate.js';
import { approximately, formatBudget, thousands } from '../plan/render-estimate.js';

/** Operations per second are averaged over this window. */
export const RATE_WINDOW_MS = 10_000;
/** A rate-limit wait reported this recently shows as "waiting for the rate limit". */
export const RATE_LIMIT_RECENT_MS = 2_000;
/** A wait for the rate budget this long or longer gets a line of its own (shorter ones are pacing, not news). */
export const RATE_WAIT_NOTICE_MS = 1_000;
/** Without a TTY, how often a line says how long is left (a CI log of a long apply). */
export const REMAINING_NOTE_EVERY_MS = 60_000;
/** The time left is worked out again at most this often: it replays the pacing of every write left. */
export const REMAINING_RECOMPUTE_MS = 500;

/** How far one target's apply is. */
export interface TargetProgress {
  target: string;
  done: number;
  total: number;
}

export interface ProgressSnapshot {
  /** Every target whose apply started, in the order they started. */
  targets: readonly TargetProgress[];
  /** API operations finished per second, recently, over all targets. */
  ratePerSecond: number;
  /** Whether the client reported a rate-limit wait recently. */
  rateLimited: boolean;
  /** Seconds spent waiting for the rate limit so far. */
  waitedSeconds: number;
  /** Seconds left of a wait for the rate budget going on now. */
  waitLeftSeconds?: number;
  /** Seconds the rest of the apply takes at the targets' budgets, when estimated. */
  remainingSeconds?: number;
}

/** `prod: 12/40 · lab: 3/5 · 1.8 ops/s · waiting for the rate limit (3.0s so far)` */
export function formatProgressLine(snapshot: ProgressSnapshot): string {
  const parts = [
    ...snapshot.targets.map((t) => `${t.target}: ${t.done}/${t.total}`),
    `${snapshot.ratePerSecond.toFixed(1)} ops/s`,
  ];
  if (snapshot.waitLeftSeconds !== undefined && snapshot.waitLeftSeconds > 0)
    parts.push(`waiting for the rate budget: ${snapshot.waitLeftSeconds.toFixed(1)}s left`);
  else if (snapshot.rateLimited)
    parts.push(`waiting for the rate limit (${snapshot.waitedSeconds.toFixed(1)}s so far)`);
  else if (snapshot.waitedSeconds > 0) parts.push(`rate limit waits ${snapshot.waitedSeconds.toFixed(1)}s`);
  if (snapshot.remainingSeconds !== undefined) parts.push(`${approximately(snapshot.remainingSeconds)} left`);
  return parts.join(' · ');
}

/** `created Dashboard/api (0.4s)`, `failed Alert/x: E_CODE: <why>`, `skipped Alert/y: E_CODE: <why>`. */
export function formatChangeLine(event: ChangeFinishedEvent, options: { labelTarget?: boolean } = {}): string {
  const prefix = options.labelTarget ? `[${event.target}] ` : '';
  switch (event.type) {
    case 'change-succeeded':
      return `${prefix}${PAST_TENSE[event.action]} ${event.key} (${formatSeconds(event.durationMs)})`;
    case 'change-failed':
      return `${prefix}failed ${event.key}: ${event.code}: ${event.error}`;
    case 'change-skipped':
      return `${prefix}skipped ${event.key}: ${event.code}: ${event.error}`;
  }
}

/** `waiting for 3 Pipes to settle: 2 Provisioning, 1 Snapshot` */
export function formatSettleLine(
  event: Extract<ApplyEvent, { type: 'settle-progress' }>,
  options: { labelTarget?: boolean } = {},
): string {
  const prefix = options.labelTarget ? `[${event.target}] ` : '';
  const states = Object.entries(event.states)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  return `${prefix}waiting for ${event.waiting} ${event.kind}${event.waiting === 1 ? '' : 's'} to settle: ${states}`;
}

/**
 * One line per retry, as it is decided: `[prod] GET /v1/…/pipes: attempt 1 of 6 failed (ECONNREFUSED: …);
 * attempt 2 in 0.4s`, so an unreachable target is seen at once, not after the last attempt.
 */
export function formatRetryLine(target: string, event: Parameters<NonNullable<ApiHooks['onRetry']>>[0]): string {
  return (
    `[${target}] ${event.method} ${event.route}: attempt ${event.attempt} of ${event.maxAttempts} ` +
    `failed (${event.why}); attempt ${event.attempt + 1} in ${formatSeconds(event.delayMs)}`
  );
}

/** A wait for the rate budget, as the client tells it when it starts. */
export interface RateDelay {
  waitSeconds: number;
  /** The budget waited for, named in the line. */
  budget?: { requests: number; perSeconds: number };
}

/** `waiting 9.8s for the rate budget of prod (10 requests / 10 s)` (when the wait starts; 10 requests per 10 s means waits). */
export function formatRateWait(target: string | undefined, delay: RateDelay): string {
  const budget = delay.budget ? ` (${formatBudget(delay.budget)})` : '';
  return `waiting ${delay.waitSeconds.toFixed(1)}s for the rate budget${target === undefined ? '' : ` of ${target}`}${budget}`;
}

/**
 * Tells each wait for the rate budget once, when it starts: not mere pacing (under
 * {@link RATE_WAIT_NOTICE_MS}), and not again when the lanes of other targets on the same budget
 * hear of the same wait. For commands with no progress reporter (plan, the daemon).
 */
export function rateWaitTeller(
  tell: (line: string, fields: { target: string; waitSeconds: number }) => void,
  clock: () => number = Date.now,
): (target: string, delay: RateDelay) => void {
  let waitUntil = -Infinity;
  return (target, delay) => {
    const now = clock();
    if (delay.waitSeconds * 1_000 < RATE_WAIT_NOTICE_MS || now < waitUntil) return;
    waitUntil = now + delay.waitSeconds * 1_000;
    tell(formatRateWait(target, delay), { target, waitSeconds: delay.waitSeconds });
  };
}

/** `Apply: 3 created, 2 updated, 1 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting in 4.2s` */
export function formatSummary(summary: ApplySummary, durationMs: number, target?: string): string {
  return `Apply${target === undefined ? '' : ` ${target}`}: ${formatOutcomes(summary)} in ${formatSeconds(durationMs)}`;
}

/** The summary of an apply from its changes and results, e.g. for JSON output or several targets. */
export function summarizeApply(
  changes: readonly Change[],
  results: ReadonlyMap<ChangeKey, ChangeResult>,
): ApplySummary {
  let summary = emptySummary();
  for (const change of changes)
    summary = withOutcome(summary, outcomeOf(change, results.get(changeKey(change.kind, change.name))));
  return summary;
}

/** Events per second among `times` (ms) within the window ending at `now`. */
export function recentRate(times: readonly number[], now: number, windowMs = RATE_WINDOW_MS): number {
  const recent = times.filter((time) => time > now - windowMs && time <= now);
  if (recent.length === 0) return 0;
  const span = Math.max(now - Math.min(...recent), 1_000);
  return (recent.length * 1_000) / Math.min(span, windowMs);
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)}s`;
}

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressReporter {
  /** Feed every `ApplyEvent` here (pass as `onEvent`, or call from a fan-out). */
  onEvent(event: ApplyEvent): void;
  /** Feed the client's `ApiHooks.onRateLimitWait` here. */
  onRateLimitWait(event: { waitedSeconds: number }): void;
  /** Feed the client's `ApiHooks.onRateLimitDelay` here, with the target of the client. */
  onRateLimitDelay(event: RateDelay & { target: string }): void;
  /** The plan's estimate of the apply: progress then says how long is left. */
  onEstimate(estimate: ApplyEstimate): void;
}

/** `progress: 120 of 3,000 writes, ≈ 49 min left`: the line a log without a TTY gets now and then. */
export function formatRemainingLine(done: number, writes: number, seconds: number): string {
  return `progress: ${thousands(done)} of ${thousands(writes)} writes, ${approximately(seconds)} left`;
}

/** The time left of an apply, from its estimate and the requests done; what both reporters count down with. */
interface Remaining {
  estimate(estimate: ApplyEstimate): void;
  /** One request of `target` done. */
  done(target: string): void;
  /** Seconds left, worked out again at most every {@link REMAINING_RECOMPUTE_MS}; undefined without an estimate. */
  seconds(): number | undefined;
  /** The progress note, when one is due (a minute after the last); undefined otherwise. */
  due(): { done: number; writes: number; seconds: number } | undefined;
}

function trackRemaining(clock: () => number): Remaining {
  const done = new Map<string, number>();
  let estimate: ApplyEstimate | undefined;
  let notedAt = clock();
  let worked = { at: -Infinity, seconds: 0 };
  const seconds = (): number | undefined => {
    if (!estimate) return undefined;
    if (clock() - worked.at >= REMAINING_RECOMPUTE_MS)
      worked = { at: clock(), seconds: remainingSeconds(estimate, done) };
    return worked.seconds;
  };
  return {
    estimate(given) {
      estimate = given;
      notedAt = clock();
      worked = { at: -Infinity, seconds: 0 };
    },
    done: (target) => void done.set(target, (done.get(target) ?? 0) + 1),
    seconds,
    due() {
      if (!estimate || clock() - notedAt < REMAINING_NOTE_EVERY_MS) return undefined;
      notedAt = clock();
      return {
        done: [...done.values()].reduce((sum, count) => sum + count, 0),
        writes: estimate.writes,
        seconds: seconds() ?? 0,
      };
    },
  };
}

export interface ProgressOptions {
  stream: ProgressStream;
  /** ms; default `Date.now`. */
  clock?: () => number;
  /** Default: `stream.isTTY`. */
  tty?: boolean;
  /** Prefix lines and summaries with the target, for runs over several targets. */
  labelTargets?: boolean;
}

const CLEAR_LINE = '\r\u001b[2K';

export function createProgressReporter(options: ProgressOptions): ProgressReporter {
  const { stream } = options;
  const clock = options.clock ?? Date.now;
  const tty = options.tty ?? stream.isTTY === true;
  const labelTarget = options.labelTargets === true;
  const state = { waitedSeconds: 0, lastWaitAt: -Infinity, drawn: false, waitUntil: -Infinity, lastSettle: '' };
  let ticker: NodeJS.Timeout | undefined;
  // Targets apply in parallel: each keeps its own count, so one's events never move another's.
  const targets = new Map<string, TargetProgress>();
  const operationTimes: number[] = [];
  const remaining = trackRemaining(clock);

  const line = (): string => {
    const now = clock();
    const text = formatProgressLine({
      targets: [...targets.values()],
      ratePerSecond: recentRate(operationTimes, now),
      rateLimited: now - state.lastWaitAt <= RATE_LIMIT_RECENT_MS,
      waitedSeconds: state.waitedSeconds,
      waitLeftSeconds: Math.max(0, (state.waitUntil - now) / 1_000),
      ...optional('remainingSeconds', remaining.seconds()),
    });
    // Target names and settle states come from the config and the server: shown, never obeyed.
    const shown = show(text);
    return stream.columns ? shown.slice(0, Math.max(stream.columns - 1, 10)) : shown;
  };
  const redraw = (): void => {
    stream.write(`${CLEAR_LINE}${line()}`);
    state.drawn = true;
  };
  /** Prints a whole line; on a TTY above the progress line, which is redrawn after it. */
  const print = (line: string, keepProgress: boolean): void => {
    // Names and servers' messages in one line, its control characters shown, never obeyed (support/terminal.ts).
    const text = show(line);
    if (!tty) {
      stream.write(`${text}\n`);
      return;
    }
    stream.write(`${state.drawn ? CLEAR_LINE : ''}${text}\n`);
    state.drawn = false;
    if (keepProgress) redraw();
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case 'apply-started':
          targets.set(event.target, { target: event.target, done: 0, total: event.total });
          if (tty) redraw();
          return;
        case 'operation-succeeded':
        case 'operation-failed':
          remaining.done(event.target);
          operationTimes.push(event.at);
          if (operationTimes.length > 1_000) operationTimes.splice(0, operationTimes.length - 1_000);
          if (tty) redraw();
          return;
        case 'change-succeeded':
        case 'change-failed':
        case 'change-skipped': {
          const progress = targets.get(event.target);
          if (progress) progress.done += 1;
          // A TTY shows successes through the counter; what went wrong stays on screen.
          if (!tty || event.type !== 'change-succeeded') print(formatChangeLine(event, { labelTarget }), true);
          else redraw();
          // Without a TTY, a line now and then saying how long is left.
          const note = tty ? undefined : remaining.due();
          if (note) print(formatRemainingLine(note.done, note.writes, note.seconds), false);
          return;
        }
        case 'apply-finished':
          if (ticker !== undefined) clearInterval(ticker);
          print(formatSummary(event.summary, event.durationMs, labelTarget ? event.target : undefined), false);
          return;
        case 'settle-progress': {
          // One line each time what is still settling changes, so a long wait shows it is alive.
          const text = formatSettleLine(event, { labelTarget });
          if (event.waiting > 0 && text !== state.lastSettle) print(text, true);
          state.lastSettle = text;
          return;
        }
        default:
          return;
      }
    },
    onRateLimitWait({ waitedSeconds }) {
      state.waitedSeconds += waitedSeconds;
      state.lastWaitAt = clock();
      if (tty && targets.size > 0) redraw();
    },
    onRateLimitDelay({ target, ...delay }) {
      const { waitSeconds } = delay;
      const now = clock();
      // One notice per wait: the lanes of targets sharing a budget hear of the same one.
      if (waitSeconds * 1_000 < RATE_WAIT_NOTICE_MS || now < state.waitUntil) return;
      state.waitUntil = now + waitSeconds * 1_000;
      if (!tty)
        return print(
          labelTarget ? `[${target}] ${formatRateWait(undefined, delay)}` : formatRateWait(target, delay),
          false,
        );
      // The time left counts down on the progress line, a redraw a second while it lasts.
      if (ticker !== undefined) clearInterval(ticker);
      ticker = setInterval(() => {
        if (clock() >= state.waitUntil) clearInterval(ticker);
        if (targets.size > 0) redraw();
      }, 1_000);
      ticker.unref();
      if (targets.size > 0) redraw();
    },
    onEstimate: (estimate) => remaining.estimate(estimate),
  };
}

/** Progress as log records, for JSON logs: the same events, never a human line among them. */
export function createProgressLog(logger: Logger, clock: () => number = Date.now): ProgressReporter {
  const tellWait = rateWaitTeller((line, fields) => logger.info(fields, line), clock);
  let lastSettle = '';
  const remaining = trackRemaining(clock);
  return {
    onEvent(event) {
      const base = { target: event.target };
      if (event.type === 'operation-succeeded' || event.type === 'operation-failed') remaining.done(event.target);
      const note =
        event.type === 'change-succeeded' || event.type === 'change-failed' || event.type === 'change-skipped'
          ? remaining.due()
          : undefined;
      if (note)
        logger.info(
          { writesDone: note.done, writes: note.writes, remainingSeconds: note.seconds },
          formatRemainingLine(note.done, note.writes, note.seconds),
        );
      switch (event.type) {
        case 'change-succeeded':
          return logger.info(
            { ...base, kind: event.kind, action: event.action, durationMs: event.durationMs },
            formatChangeLine(event),
          );
        case 'change-failed':
          return logger.error(
            { ...base, kind: event.kind, action: event.action, code: event.code },
            formatChangeLine(event),
          );
        case 'change-skipped':
          return logger.warn(
            { ...base, kind: event.kind, action: event.action, code: event.code },
            formatChangeLine(event),
          );
        case 'apply-finished':
          return logger.info(
            { ...base, summary: event.summary, durationMs: event.durationMs },
            formatSummary(event.summary, event.durationMs, event.target),
          );
        case 'settle-progress': {
          // A record each time what is still settling changes, as the human line does.
          const text = formatSettleLine(event, { labelTarget: true });
          if (event.waiting > 0 && text !== lastSettle)
            logger.info(
              { ...base, kind: event.kind, waiting: event.waiting, states: event.states },
              formatSettleLine(event),
            );
          lastSettle = text;
          return;
        }
        default:
          return;
      }
    },
    onRateLimitWait() {
      // Told when it starts (onRateLimitDelay); the metrics count the total.
    },
    onRateLimitDelay: ({ target, ...delay }) => tellWait(target, delay),
    onEstimate: (estimate) => remaining.estimate(estimate),
  };
}

/** `{ [key]: value }` when the value is defined, else nothing (optional members stay absent). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
