import { randomBytes } from "node:crypto";
import type { Sql } from "@gw/store";

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** The account's signing secret, made on first use; null for an unknown account. */
export async function webhookSecret(sql: Sql, userId: bigint): Promise<string | null> {
  const [row] = await sql<{ webhook_secret: string }[]>`
    update users set webhook_secret = coalesce(webhook_secret, ${newWebhookSecret()})
    where id = ${userId.toString()} returning webhook_secret`;
  return row?.webhook_secret ?? null;
}

/** Replaces the account's secret; deliveries from now on are signed with the new one. */
export async function rotateWebhookSecret(sql: Sql, userId: bigint): Promise<string | null> {
  const [row] = await sql<{ webhook_secret: string }[]>`
    update users set webhook_secret = ${newWebhookSecret()}
    where id = ${userId.toString()} returning webhook_secret`;
  return row?.webhook_secret ?? null;
}
