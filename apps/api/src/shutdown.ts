import type { CompletionWaiter } from "@gw/tasks";
import type { Server } from "bun";

export interface Draining {
  server: Pick<Server<unknown>, "stop" | "pendingRequests">;
  waiter: Pick<CompletionWaiter, "releaseAll">;
  graceMs: number;
  log: (line: string) => void;
}

/** Once waiters are released, how long their answers get to reach the clients. */
const RELEASE_FLUSH_MS = 5_000;

/**
 * A graceful stop: the server stops accepting connections at once, while everything that
 * answers requests in flight (the completion listener, Postgres, Redis) stays up until
 * they are answered, at most `graceMs`. Image requests still waiting then are released:
 * each answers `504 task_pending` with its task id (the task goes on, and the client
 * finds it by id). The caller closes the connections after this resolves.
 */
export async function drain({ server, waiter, graceMs, log }: Draining): Promise<void> {
  void server.stop(false);
  log(`[api] stopping: no new connections; answering ${server.pendingRequests} requests in flight`);
  const deadline = Date.now() + graceMs;
  while (server.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(50);
  if (server.pendingRequests > 0) {
    log(`[api] grace period over: ${server.pendingRequests} requests answered 504 task_pending`);
    waiter.releaseAll();
    const flushed = Date.now() + RELEASE_FLUSH_MS;
    while (server.pendingRequests > 0 && Date.now() < flushed) await Bun.sleep(50);
  }
}
