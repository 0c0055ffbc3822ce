import { Random } from "@gw/random";
import { type Draft, encodeDraft, type Role, type WireRequest } from "./draft.ts";
import { AUTH_MUTATIONS } from "./mutate-auth.ts";
import { BODY_MUTATIONS, strayBody } from "./mutate-bodies.ts";
import { FIELD_MUTATIONS } from "./mutate-fields.ts";
import { HEADER_MUTATIONS } from "./mutate-headers.ts";
import { MULTIPART_MUTATIONS } from "./mutate-multipart.ts";
import { PARAM_MUTATIONS } from "./mutate-params.ts";
import { ROUTING_MUTATIONS } from "./mutate-routing.ts";
import { URL_MUTATIONS } from "./mutate-urls.ts";
import type { Mutation } from "./mutation.ts";
import { plausibleDraft } from "./plausible.ts";
import { protectFixture } from "./protect.ts";
import { isPaid, type World } from "./world.ts";

/** A plausible request left as it is: the baseline that lets paid calls complete. */
const unchanged: Mutation = {
  name: "none",
  weight: 6,
  applies: () => true,
  apply(draft) {
    draft.mutation = "none";
  },
};

export const MUTATIONS: Mutation[] = [
  unchanged,
  ...FIELD_MUTATIONS,
  ...BODY_MUTATIONS,
  strayBody,
  ...MULTIPART_MUTATIONS,
  ...AUTH_MUTATIONS,
  ...HEADER_MUTATIONS,
  ...PARAM_MUTATIONS,
  ...URL_MUTATIONS,
  ...ROUTING_MUTATIONS,
];

/** Labels are for reading: a mutation that quotes a huge value is cut. */
const LABEL_MAX_CHARS = 200;

/** Cases that get a second mutation on top of the first: damage rarely comes alone. */
const SECOND_MUTATION_SHARE = 0.15;

/**
 * Applies a second mutation. What must be refused is then only known when the second says
 * so itself: it may have undone the first's reason (a new body, another key).
 */
function secondMutation(draft: Draft, world: World, random: Random): void {
  const first = draft.mutation;
  const others = MUTATIONS.filter((m) => m !== unchanged && m.applies(draft, world));
  if (others.length === 0) return;
  draft.mustRefuse = null;
  random.weighted(others.map((m) => [m.weight, m] as const)).apply(draft, world, random);
  draft.mutation = `${first} + ${draft.mutation}`;
}

export interface FuzzCase {
  seed: number;
  index: number;
  /** `POST /v1/images/edits`: the operation the case was made from. */
  operation: string;
  mutation: string;
  role: Role;
  mustRefuse: string | null;
  request: WireRequest;
}

/**
 * Case `index` of run `seed`: an operation (each equally likely, so every endpoint gets
 * its share), a plausible request for it, then one mutation among those that apply.
 * Depends only on (seed, index) and the world, so it reproduces on its own.
 */
export function generateCase(world: World, seed: number, index: number): FuzzCase {
  const random = Random.forCase(seed, index);
  const op = random.pick(world.operations);
  const draft: Draft = plausibleDraft(op, world, random);
  const applicable = MUTATIONS.filter((mutation) => mutation.applies(draft, world));
  // Paid calls left plausible are what complete, hold and charge: give them a larger share.
  const weightOf = (m: Mutation) => (m === unchanged && isPaid(op) ? 4 * m.weight : m.weight);
  const mutation = random.weighted(applicable.map((m) => [weightOf(m), m] as const));
  mutation.apply(draft, world, random);
  if (mutation !== unchanged && random.chance(SECOND_MUTATION_SHARE))
    secondMutation(draft, world, random);
  protectFixture(draft, world);
  return {
    seed,
    index,
    operation: op.id,
    mutation:
      draft.mutation.length > LABEL_MAX_CHARS
        ? `${draft.mutation.slice(0, LABEL_MAX_CHARS)}…`
        : draft.mutation,
    role: draft.role,
    mustRefuse: draft.mustRefuse,
    request: encodeDraft(draft),
  };
}
