import { type Static, Type } from "@sinclair/typebox";

const strict = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 200 });
const UserStatus = Type.Union([Type.Literal("active"), Type.Literal("disabled")]);
const KeyStatus = Type.Union([Type.Literal("enabled"), Type.Literal("disabled")]);
const Discount = Type.Number({
  minimum: 0,
  maximum: 1,
  description: "Fraction taken off every charge, 0 to 1.",
});
const Id = Type.String({ pattern: "^[0-9]{1,18}$", description: "Numeric id." });
const AllowedModels = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 1000,
  uniqueItems: true,
  description:
    "Model IDs the account may use; empty: every model. A family ID admits its variants.",
});

export const IdParam = Type.Object({ id: Id }, strict);

export const UserCreate = Type.Object(
  {
    name: Name,
    balance_usd: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1e9, description: "Opening balance in USD." }),
    ),
    discount: Type.Optional(Discount),
    status: Type.Optional(UserStatus),
    allowed_models: Type.Optional(AllowedModels),
  },
  strict,
);
export type UserCreate = Static<typeof UserCreate>;

export const UserPatch = Type.Object(
  {
    name: Type.Optional(Name),
    discount: Type.Optional(Discount),
    status: Type.Optional(UserStatus),
    allowed_models: Type.Optional(AllowedModels),
  },
  { ...strict, minProperties: 1 },
);
export type UserPatch = Static<typeof UserPatch>;

export const User = Type.Object({
  id: Type.String(),
  name: Type.String(),
  balance_usd: Type.Number(),
  total_spent_usd: Type.Number(),
  discount: Type.Number(),
  status: UserStatus,
  allowed_models: Type.Array(Type.String()),
});
export type User = Static<typeof User>;

export const CreditBody = Type.Object(
  {
    amount_usd: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e9,
      description: "Top-up in USD, positive.",
    }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  strict,
);
export type CreditBody = Static<typeof CreditBody>;

const KeyFields = {
  name: Name,
  quota: Type.Union([Type.Integer({ minimum: 0, maximum: 1e15 }), Type.Null()], {
    description: "Key budget in quota units (1 USD = 500,000); null = no separate budget.",
  }),
  rpm_limit: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    description: "Requests per minute; 0 = no separate limit.",
  }),
  model_limits: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 1000,
    uniqueItems: true,
    description: "Allowed models; empty = all.",
  }),
  allowed_ips: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 1000,
    description: "IPs and CIDRs (v4 and v6) the key may be used from; empty = anywhere.",
  }),
  expires_at: Type.Integer({ minimum: 0, maximum: 1e11, description: "Unix seconds; 0 = never." }),
};

export const KeyCreate = Type.Object(
  {
    user_id: Type.Union([Id, Type.Integer({ minimum: 1 })]),
    name: KeyFields.name,
    quota: Type.Optional(KeyFields.quota),
    rpm_limit: Type.Optional(KeyFields.rpm_limit),
    model_limits: Type.Optional(KeyFields.model_limits),
    allowed_ips: Type.Optional(KeyFields.allowed_ips),
    expires_at: Type.Optional(KeyFields.expires_at),
  },
  strict,
);
export type KeyCreate = Static<typeof KeyCreate>;

export const KeyPatch = Type.Object(
  {
    name: Type.Optional(KeyFields.name),
    quota: Type.Optional(KeyFields.quota),
    rpm_limit: Type.Optional(KeyFields.rpm_limit),
    model_limits: Type.Optional(KeyFields.model_limits),
    allowed_ips: Type.Optional(KeyFields.allowed_ips),
    expires_at: Type.Optional(KeyFields.expires_at),
    status: Type.Optional(KeyStatus),
  },
  { ...strict, minProperties: 1 },
);
export type KeyPatch = Static<typeof KeyPatch>;

export const Key = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  name: Type.String(),
  status: KeyStatus,
  key_hint: Type.String({ description: "The start and end of the secret, for recognising it." }),
  quota: Type.Union([Type.Integer(), Type.Null()]),
  used_quota: Type.Integer(),
  rpm_limit: Type.Integer(),
  model_limits: Type.Array(Type.String()),
  allowed_ips: Type.Array(Type.String()),
  expires_at: Type.Integer(),
  created_at: Type.Integer({ description: "Unix seconds." }),
});
export type Key = Static<typeof Key>;

export const KeyCreated = Type.Composite([
  Key,
  Type.Object({
    key: Type.String({ description: "The secret. Shown this once; only its hash is stored." }),
  }),
]);
export type KeyCreated = Static<typeof KeyCreated>;

export const EndpointParam = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 300,
      description: "URL-encoded endpoint path, e.g. %2Fv1%2Fbalance.",
    }),
  },
  strict,
);
export const EndpointClosure = Type.Object({ closed: Type.Boolean() }, strict);
export const EndpointState = Type.Object({ path: Type.String(), closed: Type.Boolean() });
export const ClosedEndpoints = Type.Object({
  data: Type.Array(Type.Object({ path: Type.String(), closed_at: Type.Integer() })),
});
