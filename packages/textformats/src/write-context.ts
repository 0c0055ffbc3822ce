import type { Conversation } from "./neutral.ts";

/** What a writer of client answers (whole or streamed) may be told beyond the answer. */
export interface WriteContext {
  /** The model the client asked for, echoed in the answer (else the upstream's name). */
  model?: string;
  /** The answer's id (else the upstream's). */
  id?: string;
  /** Unix seconds of creation (else now). */
  created?: number;
  /** The client's request in neutral form: what the responses format echoes back. */
  request?: Conversation;
}

export const createdAt = (context: WriteContext): number =>
  context.created ?? Math.floor(Date.now() / 1000);

/** Output item ids derived from the answer id, so they are stable for one answer. */
export const itemId = (prefix: string, answerId: string, index: number): string =>
  `${prefix}_${answerId.replace(/[^A-Za-z0-9]/g, "")}_${index}`;
