// Proves the stub speaks the public OpenAI Images API shape (bearer auth, required fields,
// OpenAI error bodies, n and response_format, URL results on its own /files path) and that
// its scripted behaviours (gate, hang and release, stop) hold requests as documented.
import { afterAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { sniffImage } from "../image/sniff.ts";
import { startOpenAIImagesStub } from "./openai-stub.ts";

const stub = await startOpenAIImagesStub({ apiKey: "sk-test" });
afterAll(() => stub.stop());

interface Answer {
  data: { b64_json: string; url: string }[];
  error: { message: string; type: string; code: string | null; param: string | null };
}

async function json(response: Response | Promise<Response>): Promise<Answer> {
  return (await (await response).json()) as Answer;
}

function generate(body: unknown, key = "sk-test") {
  return fetch(`${stub.url}/images/generations`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("API shape", () => {
  test("a wrong or missing key is 401 in the OpenAI error shape", async () => {
    const wrong = await generate({ model: "m", prompt: "p" }, "sk-nope");
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error).toMatchObject({
      type: "invalid_request_error",
      code: "invalid_api_key",
    });
    const none = await fetch(`${stub.url}/images/generations`, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
    expect(stub.requests.at(-1)!.authorized).toBe(false);
  });

  test("missing model or prompt, bad JSON and an edit without image are 400", async () => {
    const noPrompt = await generate({ model: "m" });
    expect(noPrompt.status).toBe(400);
    expect((await json(noPrompt)).error).toMatchObject({
      code: "missing_required_parameter",
      param: "prompt",
    });
    expect((await generate({ prompt: "p" })).status).toBe(400);
    const badJson = await fetch(`${stub.url}/images/generations`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test" },
      body: "{",
    });
    expect(badJson.status).toBe(400);
    const form = new FormData();
    form.set("model", "m");
    form.set("prompt", "p");
    const noImage = await fetch(`${stub.url}/images/edits`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test" },
      body: form,
    });
    expect((await json(noImage)).error).toMatchObject({ param: "image" });
  });

  test("n images as b64_json by default, or URLs served from /files", async () => {
    const b64 = await json(generate({ model: "m", prompt: "p", n: 3, size: "40x20" }));
    expect(b64.data).toHaveLength(3);
    const first = new Uint8Array(Buffer.from(b64.data[0]!.b64_json, "base64"));
    expect(sniffImage(first)).toEqual({ format: "png", width: 40, height: 20 });
    const urls = await json(
      generate({
        model: "m",
        prompt: "p",
        response_format: "url",
        output_format: "jpeg",
        size: "24x24",
      }),
    );
    expect(urls.data[0]!.url.startsWith(`${new URL(stub.url).origin}/files/`)).toBe(true);
    const file = await fetch(urls.data[0]!.url);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(new Uint8Array(await file.arrayBuffer())).metadata()).width).toBe(24);
  });

  test("without a size, the answer is the small cached PNG", async () => {
    const body = await json(generate({ model: "m", prompt: "p" }));
    expect(sniffImage(new Uint8Array(Buffer.from(body.data[0]!.b64_json, "base64")))).toEqual({
      format: "png",
      width: 64,
      height: 64,
    });
  });

  test("unknown paths are 404", async () => {
    expect((await fetch(`${stub.url}/models`)).status).toBe(404);
  });
});

describe("scripted behaviours", () => {
  test("a gate holds requests until it opens, then they answer normally", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    stub.script([{ gate }, { gate }]);
    let answered = 0;
    const pending = [1, 2].map(() =>
      generate({ model: "m", prompt: "p" }).then((response) => {
        answered++;
        return response.status;
      }),
    );
    await Bun.sleep(50);
    expect(answered).toBe(0);
    open();
    expect(await Promise.all(pending)).toEqual([200, 200]);
  });

  test("a hung request answers on release", async () => {
    stub.script({ hang: true });
    const pending = generate({ model: "m", prompt: "p" });
    await Bun.sleep(20);
    stub.release();
    expect((await pending).status).toBe(200);
  });

  test("a scripted status answers with its body and headers", async () => {
    stub.script({
      status: 429,
      headers: { "retry-after": "3" },
      body: { error: { message: "slow down" } },
    });
    const response = await generate({ model: "m", prompt: "p" });
    expect([response.status, response.headers.get("retry-after")]).toEqual([429, "3"]);
    expect((await json(response)).error.message).toBe("slow down");
  });

  test("stop drops requests that still hang", async () => {
    const own = await startOpenAIImagesStub();
    own.script({ hang: true });
    const pending = fetch(`${own.url}/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${own.apiKey}` },
      body: JSON.stringify({ model: "m", prompt: "p" }),
    });
    await Bun.sleep(20);
    await own.stop();
    await expect(pending).rejects.toThrow();
  });
});
