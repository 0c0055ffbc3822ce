import type { Draft } from "./draft.ts";
import type { World } from "./world.ts";

/**
 * Admin cases may change accounts and keys, but never the ones the other cases stand on
 * (a, b, broke and their keys): a PATCH or DELETE whose id reads as one of theirs
 * (`1`, `001`, ` 1`) is turned on the victim instead, so one case cannot disable the
 * account that the next thousand cases call with.
 */
export function protectFixture(draft: Draft, world: World): void {
  const { op } = draft;
  if (!op.path.startsWith("/admin/") || !["PATCH", "DELETE", "POST", "PUT"].includes(draft.method))
    return;
  const id = draft.pathParams.id;
  if (id === undefined) return;
  let decoded = id;
  try {
    decoded = decodeURIComponent(id);
  } catch {}
  const number = /^\s*\+?0*(\d{1,18})(\.0*)?\s*$/.exec(decoded)?.[1];
  if (number === undefined) return;
  const { fixture } = world;
  const keys = op.path.startsWith("/admin/keys");
  const protectedIds = keys
    ? new Set(
        [fixture.a, fixture.b, fixture.broke]
          .map((account) => account.keyId)
          .concat(fixture.protectedKeyIds),
      )
    : new Set([fixture.a, fixture.b, fixture.broke].map((account) => account.userId));
  if (protectedIds.has(number)) {
    draft.pathParams.id = keys ? fixture.victim.keyId : fixture.victim.userId;
    draft.mutation += " (id moved to the victim)";
  }
}
