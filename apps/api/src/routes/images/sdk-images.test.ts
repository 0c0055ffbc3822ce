// Proves the official `openai` package's images.generate() and images.edit() work
// against the gateway unchanged: base URL, key, multipart upload and the response shape.
import { expect, test } from "bun:test";
import { createOfflineProvider, sniffImage } from "@gw/providers";
import OpenAI, { toFile } from "openai";
import { startImageStack } from "../../testing-images.ts";

const stack = await startImageStack();
await stack.spawnWorker();
const { secret, userId } = await stack.api.account({ balanceUsd: 1 });
const client = new OpenAI({ apiKey: secret, baseURL: `${stack.api.url}/v1`, timeout: 660_000 });

test("images.generate() with b64_json", async () => {
  const result = await client.images.generate({
    model: "gpt-image-1",
    prompt: "a red bicycle",
    size: "1024x1024",
    quality: "low",
    response_format: "b64_json",
  });
  const bytes = new Uint8Array(Buffer.from(result.data![0]!.b64_json!, "base64"));
  expect(sniffImage(bytes)).toMatchObject({ format: "png", width: 1024, height: 1024 });
});

test("images.generate() with url", async () => {
  const result = await client.images.generate({ model: "lumina-image", prompt: "a kite", n: 2 });
  expect(result.data).toHaveLength(2);
  const file = await fetch(result.data![0]!.url!);
  expect(file.status).toBe(200);
});

test("images.edit() uploads files as multipart", async () => {
  const made = await createOfflineProvider().run({
    taskId: "fixture",
    model: "fixture",
    upstreamModel: "fixture",
    operation: "generate",
    prompt: "fixture",
    input: { size: "256x256" },
    images: [],
  });
  if (!made.ok) throw new Error(made.message);
  const before = await stack.accountState(userId);
  const result = await client.images.edit({
    model: "gpt-image-1",
    prompt: "add a moon",
    image: [
      await toFile(made.files[0]!.bytes, "a.png", { type: "image/png" }),
      await toFile(made.files[0]!.bytes, "b.png", { type: "image/png" }),
    ],
    quality: "low",
  });
  expect(result.data).toHaveLength(1);
  const after = await stack.accountState(userId);
  // $0.011 low 1024x1024 plus two input images at $0.01.
  expect(before.balance - after.balance).toBe(5_500n + 10_000n);
});
