import { ApiError } from "../../errors.ts";

/** Room for a part's own headers (Content-Disposition, Content-Type) beside its content. */
export const PART_HEADER_BYTES = 16 * 1024;

export interface MultipartLimits {
  /** Largest whole body. */
  maxBytes: number;
  /** Largest content of a single part (its headers get PART_HEADER_BYTES more). */
  maxPartBytes: number;
  /** Most parts a form may have. */
  maxParts: number;
  /** Says what the part limit is for, in the 413 message. */
  partLimitNote?: string;
}

/**
 * Watches a multipart body as it streams in (RFC 2046 section 5.1.1), so a form is
 * refused at its first oversized part or its first part too many instead of after the
 * whole body was held: one pass over the bytes, looking for `CRLF--boundary`, with the
 * delimiter's length minus one byte carried across chunks.
 */
export class MultipartBounds {
  private readonly delimiter: Buffer;
  private carry: Buffer;
  /** Stream position of `carry[0]`; the body is read as if a CRLF preceded it. */
  private offset = -2;
  /** Stream position where the current part (or the preamble) began. */
  private partStart = 0;
  private delimiters = 0;
  private readonly maxPartBytes: number;

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
    this.carry = Buffer.from("\r\n", "latin1");
    this.maxPartBytes = limits.maxPartBytes + PART_HEADER_BYTES;
  }

  feed(chunk: Uint8Array): void {
    const buffer = Buffer.concat([this.carry, chunk]);
    let from = 0;
    for (;;) {
      const at = buffer.indexOf(this.delimiter, from);
      if (at < 0) break;
      this.closePart(this.offset + at);
      this.partStart = this.offset + at + this.delimiter.length;
      from = at + this.delimiter.length;
    }
    const end = this.offset + buffer.length;
    // Bytes that may still begin a delimiter are not yet counted against the part.
    if (end - this.partStart > this.maxPartBytes + this.delimiter.length) this.tooLarge();
    // Keep what may begin a delimiter, but never a found one again (at start: the CRLF).
    const found = this.delimiters > 0 ? this.partStart - this.offset : 0;
    const keep = Math.max(buffer.length - (this.delimiter.length - 1), found, 0);
    this.carry = Buffer.from(buffer.subarray(keep));
    this.offset += keep;
  }

  private closePart(end: number): void {
    if (end - this.partStart > this.maxPartBytes) this.tooLarge();
    this.delimiters++;
    // The closing delimiter ends the last part, so n parts take n + 1 delimiters.
    if (this.delimiters > this.limits.maxParts + 1)
      throw new ApiError(
        "invalid_request",
        `The multipart body has more than ${this.limits.maxParts} parts`,
      );
  }

  private tooLarge(): never {
    const note = this.limits.partLimitNote ? ` (${this.limits.partLimitNote})` : "";
    throw new ApiError(
      "payload_too_large",
      `A part of the multipart body exceeds ${this.limits.maxPartBytes} bytes${note}`,
    );
  }
}
