import { duplicateClient, type RedisClient, type Sql } from "@gw/store";
import { Elysia } from "elysia";
import { ApiError } from "../errors.ts";

/**
 * A closed entry as a matcher: `:param` segments match any one segment; a trailing `/*`
 * makes it a prefix, matching the prefix itself and every path below it.
 */
export function compileClosure(path: string): RegExp {
  const prefix = path.endsWith("/*");
  const pattern = (prefix ? path.slice(0, -2) : path)
    .split("/")
    .map((segment) =>
      segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(prefix ? `^${pattern}(/.*)?$` : `^${pattern}$`);
}

export function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/**
 * The set of endpoints an administrator closed. Postgres holds it; every api process
 * keeps a copy, reloaded when another process announces a change on a Redis channel,
 * and every 10 seconds in case an announcement was missed.
 */
export class EndpointClosures {
  private closed: { path: string; regex: RegExp }[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private subscriber: RedisClient | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly redis: RedisClient,
    private readonly channel: string,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    const subscriber = duplicateClient(this.redis);
    this.subscriber = subscriber;
    subscriber.on("message", () => void this.reload().catch(() => {}));
    subscriber.on("error", () => {});
    await subscriber.subscribe(this.channel);
    this.timer = setInterval(() => void this.reload().catch(() => {}), 10_000);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }

  async reload(): Promise<void> {
    const rows = await this.sql<{ path: string }[]>`select path from closed_endpoints`;
    this.closed = rows.map(({ path }) => ({ path, regex: compileClosure(path) }));
  }

  isClosed(path: string): boolean {
    if (this.closed.length === 0) return false;
    const normalized = normalizePath(path);
    return this.closed.some((entry) => entry.path === normalized || entry.regex.test(normalized));
  }

  async set(path: string, closed: boolean): Promise<void> {
    const normalized = normalizePath(path);
    if (closed) {
      await this
        .sql`insert into closed_endpoints (path) values (${normalized}) on conflict do nothing`;
    } else {
      await this.sql`delete from closed_endpoints where path = ${normalized}`;
    }
    await this.reload();
    await this.redis.publish(this.channel, normalized);
  }

  async list(): Promise<{ path: string; closed_at: number }[]> {
    const rows = await this.sql<{ path: string; closed_at: Date }[]>`
      select path, closed_at from closed_endpoints order by path`;
    return rows.map((row) => ({
      path: row.path,
      closed_at: Math.floor(row.closed_at.getTime() / 1000),
    }));
  }
}

/** Answers 503 for a closed endpoint before anything else runs, authentication included. */
export function closuresPlugin(closures: EndpointClosures) {
  return new Elysia({ name: "gw/closures" }).onRequest(({ request }) => {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/admin")) return;
    if (closures.isClosed(path)) {
      throw new ApiError("endpoint_closed", `The endpoint ${path} is closed by an administrator`);
    }
  });
}
