import { type Command, printJson } from "../command.ts";
import { ok } from "../failure.ts";
import { formatUnix } from "../format.ts";
import { renderTable } from "../table.ts";

interface ClosedList {
  data: { path: string; closed_at: number }[];
}

interface EndpointState {
  path: string;
  closed: boolean;
}

/**
 * A path as given (`/v1/balance`, `/v1/images/*`, `/v1/models/:model`), or a name under
 * /v1 (`balance`, `images/*`): the routes people close are nearly all there.
 */
export function endpointPath(input: string): string {
  return input.startsWith("/") ? input : `/v1/${input}`;
}

const PATH_NOTES = [
  "<path> is a route (/v1/balance, /v1/models/:model), a concrete path of one, or a",
  "prefix pattern ending in /* (/v1/images/*). Without a leading / it is taken under",
  "/v1: `balance` is /v1/balance. Admin and documentation paths cannot be closed.",
];

const listClosed: Command = {
  noun: "endpoints",
  verb: "list",
  summary: "Closed endpoints (every other route is open)",
  positionals: [],
  flags: {},
  async run(context) {
    const closed = await context.client.call<ClosedList>("GET", "/admin/endpoints");
    if (!closed.ok) return closed;
    if (context.json) printJson(context, closed.value);
    else if (closed.value.data.length === 0) context.out("No endpoint is closed.");
    else
      context.out(
        renderTable(
          [{ header: "path" }, { header: "closed since" }],
          closed.value.data.map((entry) => [entry.path, formatUnix(entry.closed_at)]),
        ),
      );
    return ok(undefined);
  },
};

function toggle(verb: "close" | "open"): Command {
  const closed = verb === "close";
  return {
    noun: "endpoints",
    verb,
    summary: closed
      ? "Close an endpoint: it answers 503 endpoint_closed"
      : "Reopen a closed endpoint",
    positionals: [{ name: "path" }],
    flags: {},
    notes: [
      ...PATH_NOTES,
      closed ? "Example: endpoints close images/*" : "Example: endpoints open /v1/images/*",
    ],
    async run(context, { positionals }) {
      const path = endpointPath(positionals[0]!);
      const state = await context.client.call<EndpointState>(
        "PUT",
        `/admin/endpoints/${encodeURIComponent(path)}`,
        { closed },
      );
      if (!state.ok) return state;
      if (context.json) printJson(context, state.value);
      else if (closed)
        context.out(
          `Closed ${state.value.path}: it answers 503 endpoint_closed (other api processes follow within seconds).`,
        );
      else context.out(`Opened ${state.value.path}.`);
      return ok(undefined);
    },
  };
}

export const ENDPOINT_COMMANDS = [listClosed, toggle("close"), toggle("open")];
