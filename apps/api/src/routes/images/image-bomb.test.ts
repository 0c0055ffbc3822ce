// Proves image "bombs" (tiny files whose headers declare huge pictures) are refused, not
// retried as crashes: as multipart uploads to segment-map and layer-separation they answer
// 400 source_image_invalid at once with nothing held, created or kept; served from a URL
// they fail the task after one run, promptly, with a 400 and no charge. PNG, JPEG and WebP.
import { describe, expect, test } from "bun:test";
import { jpegBomb, pngBomb, webpBomb } from "@gw/providers/testing";
import { startHttpsStub } from "@gw/safe-fetch/testing";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;

const bombs = {
  png: pngBomb(100_000, 100_000),
  // Wider than 16384 pixels, though within the pixel limit.
  jpeg: jpegBomb(20_000, 100),
  // Within 16384 a side, over 8192x8192 pixels in all.
  webp: webpBomb(9000, 9000),
};
const served = startHttpsStub(
  Object.fromEntries(
    Object.entries(bombs).map(([format, bytes]) => [
      `/bomb.${format}`,
      () => new Response(bytes, { headers: { "content-type": `image/${format}` } }),
    ]),
  ),
);
const stack = await startImageStack({ env: { FETCH_ALLOW_HOSTS: served.host } });
const { api } = stack;
await stack.spawnWorker();
const { secret, userId } = await api.account({ balanceUsd: 2 });

const calls = [
  { model: "atlas-segment", operation: "segment-map" },
  { model: "patch-edit", operation: "layer-separation" },
];

async function upload(call: (typeof calls)[number], format: keyof typeof bombs) {
  const form = new FormData();
  form.append("model", call.model);
  form.append("operation", call.operation);
  form.append("image", new File([bombs[format]], `bomb.${format}`, { type: `image/${format}` }));
  const response = await fetch(`${api.url}/v1/images/edits`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Body };
}

describe("uploaded bombs are refused at submission", () => {
  for (const call of calls)
    for (const format of ["png", "jpeg", "webp"] as const)
      test(`${call.operation} (${call.model}) with a ${format} bomb: 400, nothing held`, async () => {
        const before = await stack.accountState(userId);
        const started = Date.now();
        const { status, body } = await upload(call, format);
        expect(status).toBe(400);
        expect(body.error.code).toBe("source_image_invalid");
        expect(body.error.message).toMatch(/^image\[0\] declares \d+x\d+ pixels/);
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(await stack.accountState(userId)).toEqual(before);
        expect([...new Bun.Glob("uploads/**").scanSync(stack.filesDir)]).toEqual([]);
      });
});

describe("bombs behind a URL fail their task after one run", () => {
  const cases = [
    { ...calls[0]!, format: "png" as const },
    { ...calls[1]!, format: "jpeg" as const },
    { ...calls[0]!, format: "webp" as const },
  ];
  for (const { model, operation, format } of cases)
    test(`${operation} (${model}) with a ${format} bomb URL: prompt 400, one attempt, no charge`, async () => {
      const before = await stack.accountState(userId);
      const started = Date.now();
      const response = await api.call("POST", "/v1/images/edits", {
        key: secret,
        body: { model, operation, input: { image_url: served.url(`/bomb.${format}`) } },
      });
      const body = (await response.json()) as Body;
      expect(response.status).toBe(400);
      expect(body.error.code).toBe("source_image_invalid");
      expect(body.error.message).toContain("pixels");
      // Well under one task lease (3 s in tests): no crash, no reclaim, no second run.
      expect(Date.now() - started).toBeLessThan(2_500);
      const taskId = response.headers.get("x-task-id")!;
      const [task] = await api.store.sql<{ attempts: number; status: string }[]>`
        select attempts, status from tasks where id = ${taskId}`;
      expect(task).toEqual({ attempts: 1, status: "failed" });
      const after = await stack.accountState(userId);
      expect(after.tasks).toBe(before.tasks + 1n);
      expect({ ...after, tasks: before.tasks }).toEqual(before);
    }, 60_000);
});
