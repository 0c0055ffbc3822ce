// Proves signed webhooks end to end: a paid image, audio or video task with a webhook_url
// is POSTed, when it ends, as a task object signed by Standard Webhooks with the account's
// secret (verified with the `standardwebhooks` package); a receiver that is down is retried
// with the same webhook-id; private addresses are refused at submission and never dialled;
// the admin API shows and rotates the secret.
import { describe, expect, test } from "bun:test";
import { startHttpsStub } from "@gw/safe-fetch/testing";
import { Webhook } from "standardwebhooks";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;

interface Received {
  headers: Record<string, string>;
  body: string;
}
const received: Received[] = [];
let receiverUp = true;
const receiver = startHttpsStub({
  "/hook": async (request) => {
    if (!receiverUp) return new Response("down for maintenance", { status: 503 });
    received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response(null, { status: 204 });
  },
});
const stack = await startImageStack({
  env: { FETCH_ALLOW_HOSTS: receiver.host, WEBHOOK_POLL_MS: "100", WEBHOOK_RETRY_BASE_MS: "300" },
});
const { api } = stack;
await stack.spawnWorker();
const hook = receiver.url("/hook");

async function secretOf(userId: string): Promise<string> {
  const response = await api.admin("GET", `/admin/users/${userId}/webhook-secret`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { secret: string }).secret;
}

async function delivered(taskId: string, timeoutMs = 10_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mine = received.filter((each) => each.headers["webhook-id"] === `msg_${taskId}`);
    if (mine.length > 0 || Date.now() > deadline) return mine;
    await Bun.sleep(50);
  }
}

describe("webhooks", () => {
  test("image, audio and video tasks are told once, signed with the account's secret", async () => {
    const { secret: key, userId } = await api.account({ balanceUsd: 5 });
    const secret = await secretOf(userId);
    expect(secret).toStartWith("whsec_");
    const image = await api.call("POST", "/v1/images/generations", {
      key,
      body: { model: "gpt-image-1", prompt: "a bell", quality: "low", webhook_url: hook },
    });
    expect(image.status).toBe(200);
    const audio = await api.call("POST", "/v1/audio/generations", {
      key,
      body: { model: "sonora/speech", prompt: "ding dong", webhook_url: hook },
    });
    const video = await api.call("POST", "/v1/videos", {
      key,
      body: {
        model: "motion-video",
        prompt: "a bell swinging",
        input: { resolution: "480p" },
        webhook_url: hook,
      },
    });
    const ids = [
      ((await image.json()) as Body).id,
      ((await audio.json()) as Body).id,
      ((await video.json()) as Body).id,
    ];
    for (const [index, id] of ids.entries()) {
      const [delivery, ...more] = await delivered(id);
      expect(more).toHaveLength(0);
      expect(delivery).toBeDefined();
      const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers) as Body;
      expect(payload).toMatchObject({
        type: "task.completed",
        data: { id, status: "completed", kind: ["image", "audio", "video"][index] },
      });
      expect(payload.data.billing.quota).toBeGreaterThan(0);
      // A wrong secret does not verify.
      expect(() =>
        new Webhook(`whsec_${btoa("not the secret at all!!")}`).verify(
          delivery!.body,
          delivery!.headers,
        ),
      ).toThrow();
    }
  });

  test("a receiver that is down is retried with the same webhook-id until it answers", async () => {
    const { secret: key, userId } = await api.account({ balanceUsd: 5 });
    receiverUp = false;
    const created = await api.call("POST", "/v1/audio/generations", {
      key,
      body: { model: "sonora/speech", prompt: "retry me", webhook_url: hook },
    });
    const id = ((await created.json()) as Body).id;
    const sql = api.store.sql;
    for (let i = 0; i < 200; i++) {
      const [row] = await sql<{ attempts: number }[]>`
        select attempts from webhook_deliveries where task_id = ${id}`;
      if ((row?.attempts ?? 0) >= 2) break;
      await Bun.sleep(50);
    }
    expect(await delivered(id, 200)).toHaveLength(0);
    receiverUp = true;
    const [delivery] = await delivered(id);
    expect(delivery).toBeDefined();
    const payload = new Webhook(await secretOf(userId)).verify(
      delivery!.body,
      delivery!.headers,
    ) as Body;
    expect(payload.data.id).toBe(id);
    const [row] = await sql<{ attempts: number; delivered: boolean }[]>`
      select attempts, delivered_at is not null as delivered from webhook_deliveries where task_id = ${id}`;
    expect(row!.delivered).toBe(true);
    expect(row!.attempts).toBeGreaterThanOrEqual(3);
  });

  test("private and plain-HTTP webhook URLs are refused before anything is held", async () => {
    const { secret: key, userId } = await api.account({ balanceUsd: 5 });
    for (const url of [
      "https://127.0.0.1/hook",
      "https://10.0.0.8/hook",
      "https://169.254.169.254/latest",
      "http://example.com/hook",
      "https://localhost/hook",
    ]) {
      const answer = await api.call("POST", "/v1/audio/generations", {
        key,
        body: { model: "sonora/speech", prompt: "x", webhook_url: url },
      });
      expect({ url, status: answer.status }).toEqual({ url, status: 400 });
      expect(((await answer.json()) as Body).error.message).toContain("webhook_url");
    }
    const [count] = await api.store.sql<{ n: string }[]>`
      select count(*)::text as n from tasks where user_id = ${userId}`;
    expect(count!.n).toBe("0");
  });

  test("a URL that turns private by delivery time is not dialled", async () => {
    const { secret: key, userId } = await api.account({ balanceUsd: 5 });
    const created = await api.call("POST", "/v1/audio/generations", {
      key,
      body: { model: "sonora/speech", prompt: "x" },
    });
    const id = ((await created.json()) as Body).id;
    const sql = api.store.sql;
    // A delivery whose address is private by the time it is sent (as after a DNS change):
    // the deliverer checks the URL and its addresses again and never dials it.
    await sql`insert into webhook_deliveries (task_id, user_id, url)
              values (${id}, ${userId}, 'https://10.1.2.3/hook')`;
    for (let i = 0; i < 200; i++) {
      const [row] = await sql<{ last_error: string | null; delivered: boolean }[]>`
        select last_error, delivered_at is not null as delivered
        from webhook_deliveries where task_id = ${id}`;
      if (row?.last_error) {
        expect(row.last_error).toContain("blocked_url");
        expect(row.delivered).toBe(false);
        return;
      }
      await Bun.sleep(50);
    }
    throw new Error("the delivery was never attempted");
  });

  test("rotating the secret signs later deliveries with the new one", async () => {
    const { secret: key, userId } = await api.account({ balanceUsd: 5 });
    const before = await secretOf(userId);
    const rotated = await api.admin("POST", `/admin/users/${userId}/webhook-secret/rotate`);
    const after = ((await rotated.json()) as { secret: string }).secret;
    expect(after).not.toBe(before);
    expect(await secretOf(userId)).toBe(after);
    const created = await api.call("POST", "/v1/audio/generations", {
      key,
      body: { model: "sonora/speech", prompt: "new secret", webhook_url: hook },
    });
    const [delivery] = await delivered(((await created.json()) as Body).id);
    expect(() => new Webhook(after).verify(delivery!.body, delivery!.headers)).not.toThrow();
    expect(() => new Webhook(before).verify(delivery!.body, delivery!.headers)).toThrow();
    expect((await api.admin("GET", "/admin/users/999999999/webhook-secret")).status).toBe(404);
  });
});
