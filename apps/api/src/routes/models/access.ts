import type { Principal } from "@gw/accounts";
import type { Access } from "@gw/tariffs";

/** Spec 5.6: lists and calls respect the account's access and the key's model limits. */
export function accessOf(principal: Principal): Access {
  return [principal.allowedModels, principal.modelLimits];
}
