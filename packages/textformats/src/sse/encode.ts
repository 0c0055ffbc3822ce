/** `data: <json>` frame, as chat and generateContent streams send them. */
export const dataFrame = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

/** `event: <name>` + `data: <json>` frame, as messages and responses streams send them. */
export const eventFrame = (name: string, payload: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;

export const DONE_FRAME = "data: [DONE]\n\n";
