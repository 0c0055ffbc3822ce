/** Reads a whole SSE byte stream as text (for tests; unbounded, so only for small answers). */
export async function readSseText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Reads what a stream gives before it fails: the text so far and the error, if any. */
export async function readSseUntilError(
  stream: ReadableStream<Uint8Array>,
): Promise<{ text: string; error?: unknown }> {
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
    return { text: text + decoder.decode() };
  } catch (error) {
    return { text, error };
  }
}
