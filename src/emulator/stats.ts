/**
 * Request counts by method and route template, for `GET /_emulator/stats`: tests count the
 * writes a run made. `writes` counts every non-GET request; `throttled` every 429.
 */
export interface RouteStats {
  method: string;
  route: string;
  count: number;
  /** By status code, or `reset` for connections cut by fault injection. */
  statuses: Record<string, number>;
}

export interface StatsSnapshot {
  total: number;
  writes: number;
  throttled: number;
  routes: RouteStats[];
}

export class Stats {
  private total = 0;
  private writes = 0;
  private throttled = 0;
  private readonly routes = new Map<string, RouteStats>();

  record(method: string, route: string, status: number | 'reset'): void {
    this.total++;
    if (method !== 'GET') this.writes++;
    if (status === 429) this.throttled++;
    const key = `${method} ${route}`;
    let entry = this.routes.get(key);
    if (!entry) {
      entry = { method, route, count: 0, statuses: {} };
      this.routes.set(key, entry);
    }
    entry.count++;
    const code = String(status);
    entry.statuses[code] = (entry.statuses[code] ?? 0) + 1;
  }

  snapshot(): StatsSnapshot {
    const routes = [...this.routes.values()]
      .map((entry) => ({ ...entry, statuses: { ...entry.statuses } }))
      .sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method));
    return { total: this.total, writes: this.writes, throttled: this.throttled, routes };
  }

  reset(): void {
    this.total = 0;
    this.writes = 0;
    this.throttled = 0;
    this.routes.clear();
  }
}
