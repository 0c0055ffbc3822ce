// Proves the SSE decoder splits frames on any line ending, across arbitrary chunk borders,
// keeps comments out of the data, and refuses frames past the size limit.
import { describe, expect, test } from "bun:test";
import { createSseDecoder, SseFrameTooLargeError } from "./decoder.ts";

const STREAM =
  'event: message_start\r\ndata: {"a":1}\r\n\r\n: keep-alive\r\n\r\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';

describe("createSseDecoder", () => {
  test("frames, comments and multi-line data", () => {
    const decoder = createSseDecoder();
    const frames = [...decoder.push(STREAM), ...decoder.end()];
    expect(frames).toEqual([
      { event: "message_start", data: '{"a":1}', raw: 'event: message_start\ndata: {"a":1}' },
      { data: "", raw: ": keep-alive" },
      { data: "line1\nline2", raw: "data: line1\ndata: line2" },
      { data: "[DONE]", raw: "data: [DONE]" },
    ]);
  });

  test("every split point of the stream gives the same frames", () => {
    const whole = createSseDecoder().push(STREAM);
    for (let at = 1; at < STREAM.length; at++) {
      const decoder = createSseDecoder();
      const frames = [
        ...decoder.push(STREAM.slice(0, at)),
        ...decoder.push(STREAM.slice(at)),
        ...decoder.end(),
      ];
      expect(frames).toEqual(whole);
    }
  });

  test("a last frame without its blank line comes out at the end", () => {
    const decoder = createSseDecoder();
    expect(decoder.push('data: {"x":1}')).toEqual([]);
    expect(decoder.end()).toEqual([{ data: '{"x":1}', raw: 'data: {"x":1}' }]);
  });

  test("a frame over the limit is refused", () => {
    const decoder = createSseDecoder(10);
    expect(() => decoder.push("data: 0123456789abc\n")).toThrow(SseFrameTooLargeError);
    expect(() => createSseDecoder(10).push("data: 0123456789abc")).toThrow(SseFrameTooLargeError);
  });
});
