// Proves the whole image path with S3-compatible storage chosen by configuration: the
// worker writes results to the bucket (a local stub of the S3 REST API), the api serves
// them through signed links and as base64, and upload files leave the bucket afterwards.
import { expect, test } from "bun:test";
import { sniffImage } from "@gw/providers";
import { startS3Stub } from "@gw/storage/testing";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const s3 = await startS3Stub({ bucket: "results" });
const stack = await startImageStack({
  env: {
    STORAGE: "s3",
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  },
});
await stack.spawnWorker();
const { secret } = await stack.api.account({ balanceUsd: 1 });

test("results land in the bucket and are served by signed link", async () => {
  const response = await stack.api.call("POST", "/v1/images/generations", {
    key: secret,
    body: { model: "lumina-image", prompt: "a dune", input: { output_format: "webp" } },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as Body;
  const keys = [...s3.objects.keys()].filter((key) => key.includes(body.id));
  expect(keys).toHaveLength(1);
  const file = await fetch(body.data[0].url);
  expect(file.headers.get("content-type")).toBe("image/webp");
  const image = sniffImage(new Uint8Array(await file.arrayBuffer()));
  expect(image).toMatchObject({ format: "webp", width: 1024, height: 1024 });
});

test("uploads pass through the bucket and are gone when the task ends", async () => {
  const made = await fetch(
    (
      (await (
        await stack.api.call("POST", "/v1/images/generations", {
          key: secret,
          body: { model: "lumina-image", prompt: "source" },
        })
      ).json()) as Body
    ).data[0].url,
  );
  const form = new FormData();
  form.append("model", "lumina-image");
  form.append("prompt", "make it snow");
  form.append("image", new File([await made.arrayBuffer()], "src.png", { type: "image/png" }));
  const response = await fetch(`${stack.api.url}/v1/images/edits`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body: form,
  });
  expect(response.status).toBe(200);
  expect([...s3.objects.keys()].filter((key) => key.includes("uploads/"))).toEqual([]);
});
