// Proves `credits add` against a real api process: the wallet grows by exactly the amount
// typed (a ledger credit), and an amount the ledger cannot hold is refused before any call.
import { describe, expect, test } from "bun:test";
import { cliFor, createUser, startApi } from "../testing.ts";

const api = await startApi();
const cli = cliFor(api);

describe("credits", () => {
  test("add tops up the wallet by exactly the amount", async () => {
    const id = await createUser(cli, "--name", "Topped", "--balance-usd", "1");
    const added = await cli(["credits", "add", id, "--usd", "0.075", "--note", "promo"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toStartWith(`Added $0.075 to user ${id}; the balance is now $1.075.\n`);
    const { user, recent } = JSON.parse((await cli(["users", "show", id, "--json"])).stdout);
    expect(user.balance_usd).toBe(1.075);
    // A top-up is not spend: the account's charges and refunds stay empty.
    expect(recent.items).toEqual([]);
    const [credits] = await api.store.sql<{ sum: bigint }[]>`
      select sum(delta_quota)::bigint as sum from ledger_entries
      where user_id = ${BigInt(id)} and kind = 'credit'`;
    expect(credits!.sum).toBe(537_500n);
  });

  test("an amount of 0, finer than a quota unit, or missing is refused before any call", async () => {
    const id = await createUser(cli, "--name", "Unchanged", "--balance-usd", "2");
    for (const usd of [["--usd", "0"], ["--usd", "0.0000001"], []]) {
      const refused = await cli(["credits", "add", id, ...usd]);
      expect(refused.code).toBe(2);
    }
    const shown = JSON.parse((await cli(["users", "show", id, "--json"])).stdout);
    expect(shown.user.balance_usd).toBe(2);
  });
});
