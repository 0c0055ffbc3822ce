/** The four public text APIs the gateway speaks, as client formats and as upstream formats. */
export const TEXT_FORMATS = ["chat", "responses", "messages", "generateContent"] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

/** How a format is named in refusal messages ("… cannot be sent to a messages upstream"). */
export const FORMAT_LABEL: Record<TextFormat, string> = {
  chat: "chat completions",
  responses: "responses",
  messages: "messages",
  generateContent: "generateContent",
};
