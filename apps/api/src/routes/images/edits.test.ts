// Proves POST /v1/images/edits in both body forms (JSON with HTTPS image URLs fetched
// safely, multipart with files), the automatic and explicit operation choice, the edit
// rules (20 MB per file, 16 references, no image twice, masks only where the mode has
// one), segment-map by URL and by task id, and that every refusal creates nothing.
import { describe, expect, test } from "bun:test";
import { createOfflineProvider, sniffImage } from "@gw/providers";
import { startHttpsStub } from "@gw/safe-fetch/testing";
import { startImageStack } from "../../testing-images.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;

async function picture(width: number, height: number, format = "png"): Promise<Uint8Array> {
  const made = await createOfflineProvider().run({
    taskId: "fixture",
    model: "fixture",
    upstreamModel: "fixture",
    operation: "generate",
    prompt: `fixture ${width}x${height}`,
    input: { size: `${width}x${height}`, output_format: format },
    images: [],
  });
  if (!made.ok) throw new Error(made.message);
  return made.files[0]!.bytes;
}

const cat = await picture(320, 240);
const dog = await picture(200, 200, "jpeg");
const images = startHttpsStub({
  "/cat.png": () => new Response(cat, { headers: { "content-type": "image/png" } }),
  "/dog.jpg": () => new Response(dog, { headers: { "content-type": "image/jpeg" } }),
  "/text.txt": () => new Response("hello"),
  "/to-private": () =>
    new Response(null, { status: 302, headers: { location: "https://10.0.0.1/secret.png" } }),
});
const stack = await startImageStack({ env: { FETCH_ALLOW_HOSTS: images.host } });
const { api } = stack;
await stack.spawnWorker();
const { secret, userId } = await api.account({ balanceUsd: 2 });
const catUrl = images.url("/cat.png");
const dogUrl = images.url("/dog.jpg");

async function edit(body: unknown, key = secret) {
  const response = await api.call("POST", "/v1/images/edits", { key, body });
  return { response, status: response.status, body: (await response.json()) as Body };
}

async function editForm(form: FormData, key = secret) {
  const response = await fetch(`${api.url}/v1/images/edits`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { response, status: response.status, body: (await response.json()) as Body };
}

const file = (bytes: Uint8Array, name: string, type = "image/png") =>
  new File([bytes], name, { type });

describe("JSON edits", () => {
  test("an image URL selects the model's edit mode and is fetched over HTTPS", async () => {
    const before = images.requests.length;
    const { status, body } = await edit({
      model: "gpt-image-1",
      prompt: "add a hat",
      image: catUrl,
      quality: "low",
    });
    expect(status).toBe(200);
    expect(body.operation).toBe("image-edit");
    // $0.011 per image plus $0.01 per input image.
    expect(body.billing.quota).toBe(5_500 + 5_000);
    expect(images.requests.slice(before).map((request) => request.path)).toEqual(["/cat.png"]);
  });

  test("lumina-image edits through image-to-image; an explicit create mode refuses the image", async () => {
    const auto = await edit({ model: "lumina-image", prompt: "snow", image: [catUrl, dogUrl] });
    expect(auto.status).toBe(200);
    expect(auto.body.operation).toBe("image-to-image");
    expect(auto.body.billing.quota).toBe(22_500);
    const before = await stack.accountState(userId);
    const explicit = await edit({
      model: "lumina-image",
      prompt: "snow",
      operation: "text-to-image",
      image: catUrl,
    });
    expect(explicit.status).toBe(400);
    expect(await stack.accountState(userId)).toEqual(before);
  });

  test("upscaling needs an explicit operation and returns the scaled size", async () => {
    const before = await stack.accountState(userId);
    const implicit = await edit({ model: "crisp-upscale", image: catUrl });
    expect(implicit.status).toBe(400);
    expect(implicit.body.error.code).toBe("unsupported_operation");
    expect(await stack.accountState(userId)).toEqual(before);
    const { status, body } = await edit({
      model: "crisp-upscale",
      operation: "upscale",
      image: catUrl,
      input: { scale: 2 },
      response_format: "b64_json",
    });
    expect(status).toBe(200);
    const bytes = new Uint8Array(Buffer.from(body.data[0].b64_json, "base64"));
    expect(sniffImage(bytes)).toMatchObject({ width: 640, height: 480 });
  });

  test("segment-map by URL returns masks with index (0 included) and name", async () => {
    const { status, body } = await edit({
      model: "atlas-segment",
      operation: "segment-map",
      input: { image_url: catUrl, max_masks: 3 },
    });
    expect(status).toBe(200);
    expect(body.billing.quota).toBe(5_000);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.map((mask: Body) => mask.index)).toEqual(
      [...body.data.keys()].map((index) => index),
    );
    for (const mask of body.data) expect(typeof mask.name).toBe("string");
  });

  test("segment-map by task_id works for the owner's task, through either endpoint", async () => {
    const source = await edit({ model: "lumina-image", prompt: "tree", image: catUrl });
    expect(source.status).toBe(200);
    for (const path of ["/v1/images/edits", "/v1/images/generations"]) {
      const response = await api.call("POST", path, {
        key: secret,
        body: {
          model: "atlas-segment",
          operation: "segment-map",
          input: { task_id: source.body.id },
        },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Body;
      expect(body.data[0].index).toBe(0);
    }
  });

  test("another account's task id reads exactly like a missing one and creates nothing", async () => {
    const other = await api.account();
    const theirs = await api.call("POST", "/v1/images/generations", {
      key: other.secret,
      body: { model: "lumina-image", prompt: "theirs" },
    });
    const theirId = ((await theirs.json()) as Body).id as string;
    const before = await stack.accountState(userId);
    const foreign = await edit({
      model: "atlas-segment",
      operation: "segment-map",
      input: { task_id: theirId },
    });
    const missing = await edit({
      model: "atlas-segment",
      operation: "segment-map",
      input: { task_id: "img_000000000000000000000000" },
    });
    expect(foreign.status).toBe(400);
    expect(missing.status).toBe(foreign.status);
    expect(foreign.body.error.message.replace(theirId, "X")).toBe(
      missing.body.error.message.replace("img_000000000000000000000000", "X"),
    );
    expect(await stack.accountState(userId)).toEqual(before);
  });

  test("a URL that redirects to a private address fails the task and charges nothing", async () => {
    const before = await stack.accountState(userId);
    const { status, body } = await edit({
      model: "gpt-image-1",
      prompt: "p",
      image: images.url("/to-private"),
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe("source_image_unavailable");
    const after = await stack.accountState(userId);
    expect({ ...after, tasks: before.tasks }).toEqual(before);
  });

  const refusals: [string, Record<string, unknown>, number][] = [
    ["no source image", { model: "gpt-image-1", prompt: "p" }, 400],
    [
      "the same image in image and input_urls",
      { model: "gpt-image-1", prompt: "p", image: catUrl, input: { input_urls: [catUrl] } },
      400,
    ],
    [
      "a mask to a mode without one",
      { model: "lumina-image", prompt: "p", image: catUrl, mask: catUrl },
      400,
    ],
    [
      "17 references",
      {
        model: "gpt-image-1",
        prompt: "p",
        image: Array.from({ length: 16 }, (_, index) => `${catUrl}?${index}`),
        input: { input_urls: [dogUrl] },
      },
      400,
    ],
    ["an http URL", { model: "gpt-image-1", prompt: "p", image: "http://example.com/a.png" }, 400],
    [
      "a loopback URL",
      { model: "gpt-image-1", prompt: "p", image: "https://127.0.0.1/a.png" },
      400,
    ],
    ["an upload reference in JSON", { model: "gpt-image-1", prompt: "p", image: "upload:0" }, 400],
  ];
  for (const [name, body, status] of refusals) {
    test(`refused: ${name}`, async () => {
      const before = await stack.accountState(userId);
      const result = await edit(body);
      expect(result.status).toBe(status);
      expect(result.body.error.code).toBeString();
      expect(await stack.accountState(userId)).toEqual(before);
    });
  }

  test("a JSON body over the JSON limit is 413 and creates nothing", async () => {
    const before = await stack.accountState(userId);
    const result = await edit({
      model: "gpt-image-1",
      prompt: "x".repeat(2 * 1024 * 1024),
      image: catUrl,
    });
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe("payload_too_large");
    expect(await stack.accountState(userId)).toEqual(before);
  });

  test("a body that is neither JSON nor multipart is 415", async () => {
    const response = await api.call("POST", "/v1/images/edits", {
      key: secret,
      rawBody: "model=gpt-image-1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
  });
});

describe("multipart edits", () => {
  test("repeated image files and a JSON input field", async () => {
    const form = new FormData();
    form.append("model", "gpt-image-1");
    form.append("prompt", "merge them");
    form.append("image", file(cat, "cat.png"));
    form.append("image", file(dog, "dog.jpg", "image/jpeg"));
    form.append("input", JSON.stringify({ quality: "low", size: "1024x1536" }));
    const { status, body } = await editForm(form);
    expect(status).toBe(200);
    expect(body.operation).toBe("image-edit");
    // $0.016 for 1024x1536 low plus two input images at $0.01.
    expect(body.billing.quota).toBe(8_000 + 10_000);
    const image = await fetch(body.data[0].url);
    const bytes = new Uint8Array(await image.arrayBuffer());
    expect(sniffImage(bytes)).toMatchObject({ width: 1024, height: 1536 });
  });

  test("an explicit operation and a mask file where the mode has one", async () => {
    const form = new FormData();
    form.append("model", "patch-edit");
    form.append("operation", "region-edit");
    form.append("prompt", "fill");
    form.append("image", file(cat, "cat.png"));
    form.append("mask", file(cat, "mask.png"));
    const { status, body } = await editForm(form);
    expect(status).toBe(200);
    expect(body.operation).toBe("region-edit");
  });

  const cases: [string, () => FormData, number][] = [
    [
      "a file over 20 MB",
      () => {
        const form = new FormData();
        form.append("model", "gpt-image-1");
        form.append("prompt", "p");
        const big = new Uint8Array(20 * 1024 * 1024 + 1);
        big.set(cat);
        form.append("image", file(big, "big.png"));
        return form;
      },
      413,
    ],
    [
      "a file that is not an image",
      () => {
        const form = new FormData();
        form.append("model", "gpt-image-1");
        form.append("prompt", "p");
        form.append("image", file(new TextEncoder().encode("not an image"), "a.png"));
        return form;
      },
      400,
    ],
    [
      "input that is not a JSON object",
      () => {
        const form = new FormData();
        form.append("model", "gpt-image-1");
        form.append("prompt", "p");
        form.append("image", file(cat, "cat.png"));
        form.append("input", "[1,2]");
        return form;
      },
      400,
    ],
    [
      "an unknown form field",
      () => {
        const form = new FormData();
        form.append("model", "gpt-image-1");
        form.append("prompt", "p");
        form.append("image", file(cat, "cat.png"));
        form.append("colour", "red");
        return form;
      },
      400,
    ],
    [
      "17 image files",
      () => {
        const form = new FormData();
        form.append("model", "gpt-image-1");
        form.append("prompt", "p");
        for (let index = 0; index < 17; index++) form.append("image", file(cat, `${index}.png`));
        return form;
      },
      400,
    ],
  ];
  for (const [name, build, status] of cases) {
    test(`refused: ${name}`, async () => {
      const before = await stack.accountState(userId);
      const result = await editForm(build());
      expect(result.status).toBe(status);
      expect(result.body.error.code).toBeString();
      expect(await stack.accountState(userId)).toEqual(before);
      const uploads = new Bun.Glob("uploads/**").scanSync(stack.filesDir);
      expect([...uploads]).toEqual([]);
    });
  }
});
