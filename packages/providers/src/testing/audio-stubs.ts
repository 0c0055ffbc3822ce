import { renderTone } from "../audio/tone.ts";

export interface AudioStub {
  /** e.g. http://127.0.0.1:1234/v1 (speech) or http://127.0.0.1:1234 (queue). */
  baseUrl: string;
  /** Bodies received by the generating endpoint, in order. */
  requests: Record<string, unknown>[];
  /** Answers the next generating calls with this HTTP status instead (0: normal). */
  failWith(status: number): void;
  stop(): Promise<void>;
}

/**
 * An OpenAI-compatible `POST /v1/audio/speech` stub: it checks the key and answers audio
 * of one second per two words of `input` in `response_format` (mp3 or wav), as the real
 * endpoint answers bytes, not JSON.
 */
export function startSpeechStub(apiKey = "sk-speech-stub"): AudioStub {
  const requests: Record<string, unknown>[] = [];
  let failing = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/audio/speech")
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      if (request.headers.get("authorization") !== `Bearer ${apiKey}`)
        return Response.json({ error: { message: "bad key" } }, { status: 401 });
      const body = (await request.json()) as Record<string, unknown>;
      requests.push(body);
      if (failing)
        return Response.json({ error: { message: "stub failure" } }, { status: failing });
      const words = String(body.input ?? "")
        .split(/\s+/)
        .filter(Boolean).length;
      const format = body.response_format === "wav" ? "wav" : "mp3";
      const bytes = await renderTone(Math.max(1, Math.ceil(words / 2)), 300, format);
      return new Response(bytes, {
        headers: { "content-type": format === "wav" ? "audio/wav" : "audio/mpeg" },
      });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    failWith: (status) => {
      failing = status;
    },
    stop: () => server.stop(true),
  };
}

/**
 * A queue-style media API stub in fal.ai's queue shape: submit, then `IN_QUEUE`,
 * `IN_PROGRESS`, `COMPLETED` on successive status polls, then a result naming two
 * 3-second MP3 files it serves itself. `Authorization: Key <key>` is required.
 */
export function startQueueStub(apiKey = "queue-stub-key"): AudioStub {
  const requests: Record<string, unknown>[] = [];
  const polls = new Map<string, number>();
  let failing = 0;
  let next = 0;
  const files = new Map<string, Uint8Array>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const origin = url.origin;
      const file = /^\/files\/(.+)$/.exec(url.pathname);
      if (file) {
        const bytes = files.get(file[1]!);
        return bytes
          ? new Response(bytes, { headers: { "content-type": "audio/mpeg" } })
          : new Response("gone", { status: 404 });
      }
      if (request.headers.get("authorization") !== `Key ${apiKey}`)
        return Response.json({ detail: "bad key" }, { status: 401 });
      const status = /^\/(.+)\/requests\/([^/]+)\/status$/.exec(url.pathname);
      if (status) {
        const count = (polls.get(status[2]!) ?? 0) + 1;
        polls.set(status[2]!, count);
        return Response.json({ status: ["IN_QUEUE", "IN_PROGRESS"][count - 1] ?? "COMPLETED" });
      }
      const result = /^\/(.+)\/requests\/([^/]+)$/.exec(url.pathname);
      if (result) {
        const id = result[2]!;
        for (const n of [0, 1])
          files.set(`${id}-${n}.mp3`, await renderTone(3, 200 + 100 * n, "mp3"));
        return Response.json({
          audio: [0, 1].map((n) => ({
            url: `${origin}/files/${id}-${n}.mp3`,
            content_type: "audio/mpeg",
            file_name: `take-${n + 1}`,
          })),
        });
      }
      if (request.method === "POST") {
        const body = (await request.json()) as Record<string, unknown>;
        requests.push({ path: url.pathname, ...body });
        if (failing) return Response.json({ detail: "stub failure" }, { status: failing });
        const id = `req-${++next}`;
        const model = url.pathname.slice(1);
        return Response.json({
          request_id: id,
          status_url: `${origin}/${model}/requests/${id}/status`,
          response_url: `${origin}/${model}/requests/${id}`,
        });
      }
      return new Response("not found", { status: 404 });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    failWith: (status) => {
      failing = status;
    },
    stop: () => server.stop(true),
  };
}
