/**
 * Spec 4.8 and 7: a single-model GET for an unknown ID answers HTTP 200 with an error
 * object, so clients must check the body. Models outside the caller's access look the same.
 */
export function unknownModel(id: string) {
  const hint = id.includes("/")
    ? "; IDs containing '/' cannot be read by path, find them in GET /v1/models"
    : "";
  return {
    error: {
      message: `Model "${id}" does not exist${hint}`,
      type: "invalid_request_error",
      code: "model_not_found",
    },
  };
}
