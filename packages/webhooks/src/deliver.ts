import type { SafeFetcher } from "@gw/safe-fetch";
import type { Sql } from "@gw/store";
import { Webhook } from "standardwebhooks";
import { type DueDelivery, markDelivered, markFailed, takeDue } from "./outbox.ts";
import { webhookSecret } from "./secret.ts";

export interface DeliveryOptions {
  sql: Sql;
  fetcher: SafeFetcher;
  /** The body of a delivery: the task object as it is now, or null if the task is gone. */
  payloadOf(taskId: string): Promise<Record<string, unknown> | null>;
  /** First retry after this; each next one waits five times longer (5 s, 25 s, 2 min, …). */
  retryBaseMs: number;
  /** Attempts before a delivery is given up. */
  maxAttempts: number;
  batch?: number;
  log?: (line: string) => void;
}

/** How long a taken delivery is this process's to send. */
const LEASE_MS = 60_000;

/** When the next attempt is due after `attempts` failures, or null once they are used up. */
export function retryDelayMs(attempts: number, baseMs: number, maxAttempts: number): number | null {
  if (attempts >= maxAttempts) return null;
  return baseMs * 5 ** (attempts - 1);
}

async function deliverOne(options: DeliveryOptions, due: DueDelivery): Promise<boolean> {
  const payload = await options.payloadOf(due.task_id);
  if (!payload) {
    await markFailed(options.sql, due.id, "the task no longer exists", null);
    return false;
  }
  const secret = due.secret || (await webhookSecret(options.sql, due.user_id)) || "";
  const body = JSON.stringify(payload);
  // The id names the task's one event, so every retry carries the same one to dedupe by.
  const id = `msg_${due.task_id}`;
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(id, timestamp, body);
  const result = await options.fetcher.send(due.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body,
  });
  if (result.ok) {
    await markDelivered(options.sql, due.id);
    return true;
  }
  const attempts = due.attempts + 1;
  const retry = retryDelayMs(attempts, options.retryBaseMs, options.maxAttempts);
  await markFailed(options.sql, due.id, `${result.code}: ${result.message}`, retry);
  options.log?.(
    `[webhooks] delivery of ${due.task_id} failed (attempt ${attempts}): ${result.message}${retry === null ? "; given up" : ""}`,
  );
  return false;
}

/** Sends every due delivery once; returns how many were delivered. */
export async function deliverDue(options: DeliveryOptions): Promise<number> {
  const due = await takeDue(options.sql, options.batch ?? 50, LEASE_MS);
  const sent = await Promise.all(due.map((each) => deliverOne(options, each)));
  return sent.filter(Boolean).length;
}
