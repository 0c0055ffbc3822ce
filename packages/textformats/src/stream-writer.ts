import type { StreamEvent } from "./neutral.ts";
import type { WriteContext } from "./write-context.ts";

/** Turns neutral events into one client format's SSE text. */
export interface StreamWriter {
  /** The SSE text for one event ("" when the event shows only at the end). */
  write(event: StreamEvent): string;
  /**
   * The closing events, with the prompt-overhead comment of spec 4.11 where the format
   * has one (chat: before `data: [DONE]`; messages: before `message_stop`; responses:
   * before the terminal `response.completed` or `response.incomplete`; never in
   * generateContent). Call it once the last usage event has been written.
   */
  end(promptOverheadTokens?: number): string;
}

export interface StreamWriteContext extends WriteContext {
  /**
   * Chat only: send the usage chunk (`choices: []`) before `[DONE]`, as OpenAI does when
   * the client set stream_options.include_usage. Defaults to the request's own setting.
   */
  includeUsage?: boolean;
}
