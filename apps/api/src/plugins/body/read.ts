import { ApiError } from "../../errors.ts";

/**
 * Reads a request body up to `maxBytes`, refusing (413) as soon as it grows past them,
 * whether the client declared a length or sent it chunked: nothing over the limit is
 * ever held. `inspect` sees each chunk as it arrives and may refuse it by throwing.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  inspect?: (chunk: Uint8Array) => void,
): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => {
        // The client's upload broke off: its request, not a failure of ours (errors.ts
        // takes any other cause of a body refusal for an internal error).
        throw new ApiError("invalid_request", "The request body could not be read to its end");
      });
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes)
        throw new ApiError("payload_too_large", `The request body exceeds ${maxBytes} bytes`);
      inspect?.(value);
      chunks.push(value);
    }
  } catch (error) {
    // Stop the upload: the rest of the body is neither read nor kept.
    await reader.cancel().catch(() => {});
    throw error;
  }
  return Buffer.concat(chunks, size);
}
