import type { TextFormat } from "./formats.ts";
import type { Conversation, Message, Part } from "./neutral.ts";

export function emptyConversation(source: TextFormat, model: string): Conversation {
  return {
    source,
    model,
    stream: false,
    includeUsage: false,
    system: [],
    messages: [],
    tools: [],
    stop: [],
    untranslatable: [],
  };
}

/**
 * System text before the first turn becomes the conversation's system prompt (the one
 * place messages and generateContent can hold it); later system text stays a turn.
 */
export function addSystem(conv: Conversation, parts: Part[]): void {
  const leading = conv.messages.length === 0;
  if (leading && parts.every((part) => part.type === "text")) {
    for (const part of parts) if (part.type === "text") conv.system.push(part.text);
    return;
  }
  conv.messages.push({ role: "system", parts });
}

/**
 * One client message is one turn, never merged with its neighbours, so the local count
 * sees the messages the client sent; writers merge turns where their format needs it.
 */
export function addTurn(conv: Conversation, role: Message["role"], parts: Part[]): void {
  conv.messages.push({ role, parts });
}

/** Names each tool result that carries only a call id after the tool call it answers. */
export function nameToolResults(conv: Conversation): void {
  const names = new Map<string, string>();
  for (const message of conv.messages)
    for (const part of message.parts) {
      if (part.type === "tool_call") names.set(part.id, part.name);
      else if (part.type === "tool_result" && part.name === undefined) {
        const name = names.get(part.callId);
        if (name !== undefined) part.name = name;
      }
    }
}
