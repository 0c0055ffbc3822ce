import type { TextFailure } from "@gw/providers";
import { ApiError } from "../../errors.ts";

/**
 * An upstream failure as the client sees it: a request the provider refused is the
 * client's to fix (400, with the provider's reason); the rest are ours (502, 503, 504).
 * Nothing is charged for any of them: the hold is released.
 */
export function textFailure(failure: TextFailure, model: string): ApiError {
  const reason = failure.message.slice(0, 500);
  switch (failure.code) {
    case "upstream_rejected":
      return new ApiError(
        "invalid_request",
        `The provider of ${model} refused the request: ${reason}`,
      );
    case "upstream_timeout":
      return new ApiError(
        "upstream_timeout",
        `The provider of ${model} did not answer in time; nothing was charged`,
      );
    case "upstream_unavailable":
      return new ApiError(
        "upstream_unavailable",
        `The provider of ${model} is unavailable (${reason}); nothing was charged`,
      );
    default:
      return new ApiError(
        "upstream_error",
        `The provider of ${model} failed (${reason}); nothing was charged`,
      );
  }
}
