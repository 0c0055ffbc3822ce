import { type Static, Type } from "@sinclair/typebox";
import { Key, User } from "./admin.ts";

const Cursor = Type.String({
  pattern: "^[0-9]{1,18}$",
  description: "Numeric id: the list goes on after it (the last id of the previous page).",
});

export const UserListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,3}$", description: "1 to 100; default 50." }),
    ),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type UserListQuery = Static<typeof UserListQuery>;

export const KeyListQuery = Type.Object(
  {
    user_id: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,18}$", description: "Only this account's keys." }),
    ),
    limit: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,3}$", description: "1 to 100; default 50." }),
    ),
    after: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type KeyListQuery = Static<typeof KeyListQuery>;

export const UserList = Type.Object({
  data: Type.Array(User),
  has_more: Type.Boolean({
    description: "More accounts follow: ask again with `after` = the last id.",
  }),
});
export type UserList = Static<typeof UserList>;

export const KeyList = Type.Object({
  data: Type.Array(Key, { description: "Keys that are not deleted, by id; never their secrets." }),
  has_more: Type.Boolean({
    description: "More keys follow: ask again with `after` = the last id.",
  }),
});
export type KeyList = Static<typeof KeyList>;
