import type { Random } from "@gw/random";

/** The paid calls the soak makes. */
export type CallKind =
  | "image"
  | "image_edit"
  | "speech"
  | "music"
  | "video"
  | "chat"
  | "messages"
  | "responses"
  | "gemini";

export const MEDIA_KINDS: readonly CallKind[] = ["image", "image_edit", "speech", "music", "video"];
export const isText = (kind: CallKind) => !MEDIA_KINDS.includes(kind);

/** Share of each kind in the mix: media runs through the workers, text in the api. */
const MIX: Record<CallKind, number> = {
  image: 30,
  image_edit: 8,
  speech: 8,
  music: 4,
  video: 3,
  chat: 14,
  messages: 12,
  responses: 11,
  gemini: 10,
};

/** How the client goes away on purpose, if it does. */
export type Disconnect = { afterMs: number } | { afterFirstChunk: true };

/** One planned call: everything needed to send it again, identically. */
export interface CallPlan {
  index: number;
  kind: CallKind;
  stream: boolean;
  keyIndex: number;
  /** The api process tried first. */
  api: number;
  idempotencyKey: string | null;
  /** This call resends call `reuseOf`'s request with its Idempotency-Key. */
  reuseOf: number | null;
  disconnect: Disconnect | null;
  path: string;
  /** JSON body, or the multipart edit's fields (the image file is added when sent). */
  json: Record<string, unknown> | null;
  form: Record<string, string> | null;
}

/** A 32×32 PNG, the source image of multipart edits. */
export const SOURCE_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAO0lEQVRIiWPQqDhBU8QwakHFaBCdGE1FGqMZ7cRoUaExWppWjFY4GqNVZsVoq+LEaMOrYrTpeGJQt64Bi5egTF3yQScAAAAASUVORK5CYII=",
  ),
  (char) => char.charCodeAt(0),
);

const WORDS = "lighthouse harbour meadow copper lantern orchard glacier violet ember canyon".split(
  " ",
);

function prompt(random: Random, words: number): string {
  return Array.from({ length: words }, () => random.pick(WORDS)).join(" ");
}

/** The request of one kind: path and body, drawn from `random`. */
function request(
  kind: CallKind,
  stream: boolean,
  random: Random,
): Pick<CallPlan, "path" | "json" | "form"> {
  const text = prompt(random, random.int(3, 12));
  const cap = random.int(16, 200);
  const messages = [{ role: "user", content: text }];
  switch (kind) {
    case "image":
      return {
        path: "/v1/images/generations",
        json: random.chance(0.6)
          ? { model: "gpt-image-1", prompt: text, quality: "low", n: random.int(1, 2) }
          : { model: "lumina-image", prompt: text, input: { resolution: "1K" } },
        form: null,
      };
    case "image_edit":
      return {
        path: "/v1/images/edits",
        json: null,
        form: { model: "gpt-image-1", prompt: text, quality: "low" },
      };
    case "speech":
      return {
        path: "/v1/audio/generations",
        json: { model: "sonora/speech", prompt: text, input: { format: "mp3" } },
        form: null,
      };
    case "music":
      return {
        path: "/v1/audio/generations",
        json: { model: "sonora/music", prompt: text },
        form: null,
      };
    case "video":
      return {
        path: "/v1/videos",
        json: { model: "motion-video", prompt: text, input: { resolution: "480p", duration: 5 } },
        form: null,
      };
    case "chat":
      return {
        path: "/v1/chat/completions",
        json: {
          model: random.pick(["lumen-chat-mini", "lumen-chat"]),
          messages,
          max_tokens: cap,
          ...(stream
            ? { stream: true, stream_options: { include_usage: random.chance(0.5) } }
            : {}),
        },
        form: null,
      };
    case "messages":
      return {
        path: "/v1/messages",
        json: {
          model: random.pick(["lumen-chat", "lumen-chat-mini"]),
          max_tokens: cap,
          messages,
          ...(stream ? { stream: true } : {}),
        },
        form: null,
      };
    case "responses":
      return {
        path: "/v1/responses",
        json: {
          model: random.pick(["lumen-chat-mini", "lumen-reasoner"]),
          input: text,
          max_output_tokens: cap,
          ...(stream ? { stream: true } : {}),
        },
        form: null,
      };
    case "gemini": {
      const model = random.pick(["lumen-reasoner", "lumen-chat"]);
      return {
        path: stream
          ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
          : `/v1beta/models/${model}:generateContent`,
        json: {
          contents: [{ role: "user", parts: [{ text }] }],
          generationConfig: { maxOutputTokens: cap },
        },
        form: null,
      };
    }
  }
}

/**
 * Plans the calls of a run, in order, from the seed alone: the kind (by MIX), the key (200
 * keys over the accounts), the api tried first, an Idempotency-Key on some media calls, a
 * resend of an earlier media call's request with its key on some, and a client that goes
 * away mid-wait or mid-stream on some.
 */
export function createPlanner(random: Random, keys: number, seed: number) {
  /** Calls with an Idempotency-Key of their own, the ones a later call may resend. */
  const keyed: CallPlan[] = [];
  return (index: number): CallPlan => {
    if (keyed.length > 0 && random.chance(0.04)) {
      const original = random.pick(keyed.slice(-200));
      const plan: CallPlan = {
        ...original,
        index,
        api: random.int(0, 1),
        reuseOf: original.index,
        disconnect: null,
      };
      return plan;
    }
    const kind = random.weightedKey(MIX);
    const stream = isText(kind) && random.chance(0.5);
    const media = !isText(kind);
    let disconnect: Disconnect | null = null;
    if (stream && random.chance(0.06)) disconnect = { afterFirstChunk: true };
    else if ((kind === "image" || kind === "image_edit") && random.chance(0.04))
      disconnect = { afterMs: random.int(50, 2_000) };
    else if (!stream && !media && random.chance(0.02))
      disconnect = { afterMs: random.int(20, 400) };
    const plan: CallPlan = {
      index,
      kind,
      stream,
      keyIndex: random.int(0, keys - 1),
      api: random.int(0, 1),
      idempotencyKey: media && random.chance(0.15) ? `soak-${seed}-idem-${index}` : null,
      reuseOf: null,
      disconnect,
      ...request(kind, stream, random),
    };
    if (plan.idempotencyKey !== null) keyed.push(plan);
    return plan;
  };
}
