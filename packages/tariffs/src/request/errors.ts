/** Why a media call was refused before anything was held or sent upstream. */
export type CallRejection =
  | "model_not_found"
  | "model_not_allowed"
  | "model_unavailable"
  | "unsupported_operation"
  | "invalid_request";

export type Refusal = { ok: false; code: CallRejection; message: string };

export const refuse = (code: CallRejection, message: string): Refusal => ({
  ok: false,
  code,
  message,
});
