// Proves a same-format stream is relayed frame for frame, with the 4.11 comment added just
// before the terminal frame (chat [DONE], messages message_stop, responses
// response.completed) and never in generateContent, while its usage and finish are read.
import { describe, expect, test } from "bun:test";
import type { TextFormat } from "./formats.ts";
import type { Usage } from "./neutral.ts";
import { createStreamRelay } from "./relay.ts";
import { UPSTREAM_STREAMS } from "./testing/fixtures.ts";
import { fullInputTokens } from "./usage.ts";

const COMMENT = ": x-service-provider-prompt-tokens=640\n\n";

function relayAll(
  format: TextFormat,
  options: Parameters<typeof createStreamRelay>[1],
  chunkChars = 9,
) {
  const relay = createStreamRelay(format, options);
  const text = UPSTREAM_STREAMS[format];
  let out = "";
  for (let at = 0; at < text.length; at += chunkChars)
    out += relay.push(text.slice(at, at + chunkChars));
  return { out: out + relay.end(), relay };
}

describe("createStreamRelay", () => {
  test.each([
    ["chat", "data: [DONE]\n\n"],
    ["messages", 'event: message_stop\ndata: {"type":"message_stop"}\n\n'],
    ["responses", "event: response.completed\n"],
  ] as const)(
    "%s: the stream unchanged but for the comment before its terminal frame",
    (format, terminal) => {
      const seen: (Usage | undefined)[] = [];
      const { out, relay } = relayAll(format, {
        promptOverhead: (usage) => {
          seen.push(usage);
          return 640;
        },
      });
      const at = UPSTREAM_STREAMS[format].indexOf(terminal);
      const upstream = UPSTREAM_STREAMS[format];
      expect(out).toBe(upstream.slice(0, at) + COMMENT + upstream.slice(at));
      expect(seen.length).toBe(1);
      // The whole usage is known when it is asked, even for responses, whose usage is in
      // the very frame the comment precedes.
      const usage = seen[0];
      expect(usage && fullInputTokens(usage)).toBe(1500);
      expect(relay.usage()?.outputTokens).toBe(25);
      expect(relay.finish()).toEqual({ reason: "tool_calls" });
      expect(relay.error()).toBeUndefined();
    },
  );

  test("no comment when the rule gives no value", () => {
    const { out } = relayAll("chat", { promptOverhead: () => undefined });
    expect(out).toBe(UPSTREAM_STREAMS.chat);
  });

  test("generateContent never asks and never carries the comment", () => {
    let asked = false;
    const { out, relay } = relayAll("generateContent", {
      promptOverhead: () => {
        asked = true;
        return 640;
      },
    });
    expect(asked).toBe(false);
    expect(out).toBe(UPSTREAM_STREAMS.generateContent);
    expect(relay.usage()).toEqual({
      inputTokens: 500,
      outputTokens: 25,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
    });
  });

  test("chat: the usage chunk the gateway asked for is hidden from a client that did not", () => {
    const { out, relay } = relayAll("chat", { stripUsage: true, promptOverhead: () => 640 });
    expect(out).not.toContain('"choices":[]');
    expect(out.endsWith(`${COMMENT}data: [DONE]\n\n`)).toBe(true);
    expect(relay.usage()?.inputTokens).toBe(200);
  });

  test("CRLF upstreams are relayed with LF line ends", () => {
    const relay = createStreamRelay("chat");
    const out =
      relay.push('data: {"id":"x","choices":[]}\r\n\r\ndata: [DONE]\r\n\r\n') + relay.end();
    expect(out).toBe('data: {"id":"x","choices":[]}\n\ndata: [DONE]\n\n');
  });
});
