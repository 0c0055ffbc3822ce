// Proves the checker's rules on made-up answers: the one error shape and nothing else, no
// 5xx, no answer is a violation, a refusal or a GET that moves state is one, and a refusal
// naming a failed task may add the task but never touch money.
import { expect, test } from "bun:test";
import type { FuzzCase } from "./cases.ts";
import { checkAnswer, checkState, errorShapeProblem } from "./checks.ts";
import type { Outcome } from "./send.ts";
import type { World } from "./world.ts";

const outcome = (fields: Partial<Outcome>): Outcome => ({
  status: 400,
  error: null,
  unsendable: false,
  contentType: "application/json",
  body: JSON.stringify({ error: { message: "m", type: "t", code: "c" } }),
  headers: new Headers(),
  ms: 1,
  ...fields,
});

const fuzzCase = (method = "POST", mustRefuse: string | null = null): FuzzCase => ({
  seed: 1,
  index: 0,
  operation: `${method} /x`,
  mutation: "none",
  role: "admin",
  mustRefuse,
  request: { method, target: "/x", headers: {}, bodyBytes: 0 },
});

const world = {} as World;

test("the one error shape passes; anything else is named", () => {
  expect(errorShapeProblem(outcome({}))).toBeNull();
  expect(errorShapeProblem(outcome({ body: '{"error":{"message":"m","type":"t"}}' }))).toContain(
    "fields",
  );
  expect(
    errorShapeProblem(outcome({ body: '{"error":{"message":"m","type":"t","code":"c"},"x":1}' })),
  ).toContain("top-level");
  expect(errorShapeProblem(outcome({ contentType: "text/plain" }))).toContain("Content-Type");
  expect(errorShapeProblem(outcome({ body: "" }))).toContain("not JSON");
});

test("a 5xx, a missing answer and an accepted must-refuse case are violations", () => {
  expect(checkAnswer(world, fuzzCase(), outcome({ status: 500 })).map((v) => v.kind)).toEqual([
    "5xx",
  ]);
  expect(checkAnswer(world, fuzzCase(), outcome({ status: null, error: "timeout" }))[0]!.kind).toBe(
    "no-answer",
  );
  expect(
    checkAnswer(world, fuzzCase("POST", "a bad key"), outcome({ status: 200, body: "{}" }))[0]!
      .kind,
  ).toBe("accepted");
  expect(checkAnswer(world, fuzzCase(), outcome({}))).toEqual([]);
});

test("refusals and safe calls must not move state; accepted calls may", () => {
  const moved = ["balance: 1 -> 0"];
  expect(checkState(fuzzCase(), outcome({ status: 402 }), moved)[0]!.kind).toBe("state");
  expect(checkState(fuzzCase("GET"), outcome({ status: 200 }), moved)[0]!.kind).toBe("state");
  expect(checkState(fuzzCase(), outcome({ status: 200 }), moved)).toEqual([]);
});

test("a refusal naming its failed task may add the task and its voided hold, not money", () => {
  const failed = outcome({ status: 400, headers: new Headers({ "x-task-id": "img_1" }) });
  expect(
    checkState(fuzzCase(), failed, ["tasks: 1 -> 2", "holds: 1 -> 2", "taskStates: a -> b"]),
  ).toEqual([]);
  expect(
    checkState(fuzzCase(), failed, ["tasks: 1 -> 2", "ledgerSum: 5 -> 4"])[0]!.detail,
  ).toContain("ledgerSum");
});

test("the error object in a 200 (spec 4.8: an unknown model by path) is a refusal", () => {
  const unknownModel = outcome({ status: 200 });
  expect(checkAnswer(world, fuzzCase("GET", "an admin path"), unknownModel)).toEqual([]);
  const data = outcome({ status: 200, body: '{"data":[]}' });
  expect(checkAnswer(world, fuzzCase("GET", "an admin path"), data)[0]!.kind).toBe("accepted");
});
