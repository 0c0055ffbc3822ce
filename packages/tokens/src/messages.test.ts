// Proves local token counts equal what the model's tokenizer gives for fixed texts, with
// the profile's published overheads around them, and that images count by pixel size.
import { describe, expect, test } from "bun:test";
import { DEFAULT_CATALOG } from "@gw/tariffs";
import sharp from "sharp";
import { imageTokensForSize, UNKNOWN_IMAGE_TOKENS } from "./images.ts";
import { countRequestTokens } from "./messages.ts";
import { isKnownProfile, loadProfile } from "./profiles.ts";

const GREETING = "Hello, Claude. How many tokens is this sentence?";
const QUESTION = "Summarise the rules of chess in three short lines, please.";

describe("countRequestTokens", () => {
  test("claude encoding: one user message is the text's tokens × 1.1 plus the overheads", async () => {
    const profile = await loadProfile("anthropic/claude-sonnet-4.5");
    expect(profile.encoding).toBe("claude");
    const { tokenizer } = profile;
    // By hand: base overhead 6, per message 2, the role's tokens, the text's tokens × 1.1.
    const expected = 6 + 2 + tokenizer.count("user") + Math.round(tokenizer.count(GREETING) * 1.1);
    expect(
      countRequestTokens(profile, {
        model: "lumen-chat",
        messages: [{ role: "user", content: GREETING }],
      }),
    ).toBe(expected);
    expect(tokenizer.count(GREETING)).toBeGreaterThan(5);
  });

  test("o200k encoding: system, two turns and text blocks", async () => {
    const profile = await loadProfile("openai/gpt-4o-mini");
    expect(profile.encoding).toBe("o200k_base");
    const { tokenizer } = profile;
    const message = (role: string, text: string) =>
      3 + tokenizer.count(role) + tokenizer.count(text);
    const expected =
      6 +
      message("system", "Be brief.") +
      message("user", QUESTION) +
      message("assistant", "Sure.");
    expect(
      countRequestTokens(profile, {
        model: "lumen-chat-mini",
        system: [{ type: "text", text: "Be brief." }],
        messages: [
          { role: "user", content: [{ type: "text", text: QUESTION }] },
          { role: "assistant", content: "Sure." },
        ],
      }),
    ).toBe(expected);
  });

  test("tools, tool use and tool results add their tokens", async () => {
    const profile = await loadProfile("anthropic/claude-sonnet-4.5");
    const plain = countRequestTokens(profile, {
      model: "lumen-chat",
      messages: [{ role: "user", content: QUESTION }],
    });
    const withTools = countRequestTokens(profile, {
      model: "lumen-chat",
      messages: [{ role: "user", content: QUESTION }],
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          input_schema: {
            type: "object",
            properties: {
              city: { type: "string", description: "City name" },
              unit: { type: "string", enum: ["c", "f"] },
            },
          },
        },
      ],
    });
    const { tokenizer } = profile;
    // By hand (ai-tokenizer's claude profile): tools exist 549; name; description 5 + text;
    // first property 13 + key + description 5 + text; second 12 + key + enum 9 + values.
    const tools =
      549 +
      tokenizer.count("get_weather") +
      5 +
      tokenizer.count("Weather for a city") +
      (13 + tokenizer.count("city") + 5 + tokenizer.count("City name")) +
      (12 + tokenizer.count("unit") + 9 + tokenizer.count("c") + tokenizer.count("f"));
    expect(withTools - plain).toBe(tools);
    const toolTurns = countRequestTokens(profile, {
      model: "lumen-chat",
      messages: [
        { role: "user", content: QUESTION },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "tu_1", name: "get_weather", input: { city: "Oslo" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "tu_1", content: "Sunny, 21 C" }],
        },
      ],
    });
    const call = Math.round(
      (tokenizer.count("get_weather") + tokenizer.count(JSON.stringify({ city: "Oslo" }))) * 1.1,
    );
    const result = Math.round((tokenizer.count("tu_1") + tokenizer.count("Sunny, 21 C")) * 1.1);
    expect(toolTurns - plain).toBe(
      2 + tokenizer.count("assistant") + call + 2 + tokenizer.count("user") + result,
    );
  });

  test("an image counts width × height / 750, scaled into the provider's bounds", async () => {
    const profile = await loadProfile("anthropic/claude-sonnet-4.5");
    const png = await sharp({
      create: { width: 300, height: 150, channels: 3, background: "#ff0000" },
    })
      .png()
      .toBuffer();
    const base = countRequestTokens(profile, {
      model: "lumen-chat",
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }] }],
    });
    const withImage = (source: unknown) =>
      countRequestTokens(profile, {
        model: "lumen-chat",
        messages: [
          {
            role: "user",
            content: [{ type: "image", source } as never, { type: "text", text: "What is this?" }],
          },
        ],
      });
    const b64 = { type: "base64", media_type: "image/png", data: png.toString("base64") };
    expect(withImage(b64) - base).toBe(Math.ceil((300 * 150) / 750));
    expect(withImage({ type: "url", url: "https://example.com/a.png" }) - base).toBe(
      UNKNOWN_IMAGE_TOKENS,
    );
    expect(withImage({ ...b64, data: "bm90IGFuIGltYWdl" }) - base).toBe(UNKNOWN_IMAGE_TOKENS);
    expect(imageTokensForSize(1000, 1000)).toBe(1334);
    // Scaled to 1568 px, then to 1.2 megapixels: 1095 × 1095.
    expect(imageTokensForSize(4000, 4000)).toBe(Math.ceil((1095 * 1095) / 750));
    expect(imageTokensForSize(3136, 100)).toBe(Math.ceil((1568 * 50) / 750));
  });
});

test("every text model of the default catalog names a tokenizer profile ai-tokenizer knows", () => {
  const text = DEFAULT_CATALOG.models.filter((model) => model.kind === "text");
  expect(text.length).toBeGreaterThan(0);
  for (const model of text)
    expect({ id: model.id, known: isKnownProfile(model.tokenizer ?? "") }).toEqual({
      id: model.id,
      known: true,
    });
});
