/**
 * A server-sent-events frame: its `event` name (when given), its data lines joined by "\n",
 * and its text as received (lines joined by "\n", without the blank line that ended it),
 * which a relay forwards unchanged. A frame of comments only has no data and no event.
 */
export interface SseFrame {
  event?: string;
  data: string;
  raw: string;
}

/** No frame an upstream sends is this large; past it the stream is refused, not buffered. */
export const MAX_FRAME_CHARS = 16 * 1024 * 1024;

export class SseFrameTooLargeError extends Error {
  constructor() {
    super(`an SSE frame exceeded ${MAX_FRAME_CHARS} characters`);
  }
}

export interface SseDecoder {
  push(chunk: string): SseFrame[];
  /** The last frame, if the stream ended without its blank line. */
  end(): SseFrame[];
}

/** Splits text chunks (as a streaming TextDecoder yields them) into SSE frames. */
export function createSseDecoder(maxFrameChars = MAX_FRAME_CHARS): SseDecoder {
  let pending = "";
  let lines: string[] = [];
  let size = 0;

  const frame = (): SseFrame[] => {
    if (lines.length === 0) return [];
    const built = parseFrame(lines);
    lines = [];
    size = 0;
    return [built];
  };

  const take = (line: string, out: SseFrame[]) => {
    if (line === "") {
      out.push(...frame());
      return;
    }
    size += line.length;
    if (size > maxFrameChars) throw new SseFrameTooLargeError();
    lines.push(line);
  };

  return {
    push(chunk) {
      const out: SseFrame[] = [];
      let text = pending + chunk;
      // A trailing "\r" may be the first half of "\r\n": keep it until the next chunk.
      const held = text.endsWith("\r");
      if (held) text = text.slice(0, -1);
      const parts = text.split(/\r\n|\r|\n/);
      pending = (parts.pop() ?? "") + (held ? "\r" : "");
      if (pending.length + size > maxFrameChars) throw new SseFrameTooLargeError();
      for (const line of parts) take(line, out);
      return out;
    },
    end() {
      const out: SseFrame[] = [];
      const rest = pending.replace(/\r$/, "");
      pending = "";
      if (rest !== "") take(rest, out);
      out.push(...frame());
      return out;
    },
  };
}

function parseFrame(lines: string[]): SseFrame {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of lines) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return {
    ...(event !== undefined ? { event } : {}),
    data: data.join("\n"),
    raw: lines.join("\n"),
  };
}
