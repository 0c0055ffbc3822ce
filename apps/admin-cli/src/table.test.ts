// Proves tables line up for people (wide characters included) and that nothing the api
// returns can move the cursor or inject lines into the terminal.
import { expect, test } from "bun:test";
import { cell, renderFields, renderTable } from "./table.ts";

test("columns align under upper-case headers, numbers to the right", () => {
  const table = renderTable(
    [{ header: "id", align: "right" }, { header: "name" }, { header: "balance", align: "right" }],
    [
      ["7", "Ada", "$12.50"],
      ["12", "数据", "$0.000002"],
    ],
  );
  expect(table).toBe(
    ["ID  NAME    BALANCE", " 7  Ada      $12.50", "12  数据  $0.000002"].join("\n"),
  );
});

test("control characters are neutralised and long values cut", () => {
  expect(cell("evil\u001b[2Jname\nnext")).toBe("evil?[2Jname?next");
  expect(cell("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
});

test("fields align their labels", () => {
  expect(
    renderFields([
      ["id", "7"],
      ["balance", "$1.00"],
    ]),
  ).toBe("  id       7\n  balance  $1.00");
});
