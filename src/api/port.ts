/**
 * The port through which stacksync talks to one target's API. Two adapters implement it
 * (managed, self-hosted); the planner and executor depend only on this interface.
 */
import type { AlertWrite, DashboardWrite, DataSource, LiveAlert, LiveDashboard, LivePipe, LiveState, PipePatch, Webhook } from '../model/resources.js';
import type { Variant } from '../model/kinds.js';

export interface Api {
  readonly variant: Variant;
  /**
   * The whole live state in the fewest calls: one list per collection, alert pages on self-hosted.
   * A resource of a list that does not read is set aside in `unreadable`, never failing the list.
   */
  readLiveState(): Promise<LiveState>;

  listPipes(): Promise<LivePipe[]>;
  updatePipe(id: string, patch: PipePatch): Promise<LivePipe>;

  listDashboards(): Promise<LiveDashboard[]>;
  createDashboard(body: DashboardWrite): Promise<LiveDashboard>;
  updateDashboard(id: string, body: DashboardWrite): Promise<LiveDashboard>;
  deleteDashboard(id: string): Promise<void>;

  listAlerts(): Promise<LiveAlert[]>;
  createAlert(body: AlertWrite): Promise<LiveAlert>;
  updateAlert(id: string, body: AlertWrite): Promise<LiveAlert>;
  deleteAlert(id: string): Promise<void>;

  listSources(): Promise<DataSource[]>;
  /** The webhooks alerts can notify (current servers); one call. */
  listWebhooks(): Promise<Webhook[]>;

  /** Releases pooled connections and timers. */
  close(): Promise<void>;
}

/** Observes every HTTP exchange; the metrics module plugs in here without the client knowing it. */
export interface ApiHooks {
  onRequest?(event: { method: string; route: string; status: number | 'error'; durationSeconds: number }): void;
  onRetry?(event: { method: string; route: string; reason: RetryReason; attempt: number; delayMs: number }): void;
  /** A request waited this long for the rate budget; told when the wait is over. */
  onRateLimitWait?(event: { waitedSeconds: number }): void;
  /** Requests start a wait of this long for the rate budget; told when the wait starts. */
  onRateLimitDelay?(event: { waitSeconds: number }): void;
}

export type RetryReason = 'throttled' | 'server_error' | 'connection' | 'timeout';
