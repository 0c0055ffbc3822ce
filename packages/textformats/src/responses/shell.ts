import type { Conversation, Finish, ToolChoice, Usage } from "../neutral.ts";
import type { Json } from "../read.ts";
import { writeResponsesUsage } from "./usage.ts";

export interface ShellInput {
  id: string;
  model: string;
  createdAt: number;
  request?: Conversation;
  output: Json[];
  /** Absent while the response is in progress. */
  finish?: Finish;
  usage?: Usage;
}

const toolChoice = (choice: ToolChoice | undefined): unknown =>
  !choice ? "auto" : choice.type === "tool" ? { type: "function", name: choice.name } : choice.type;

/**
 * The response object around an answer, with the fields the Responses API always sends;
 * request settings are echoed from the client's request when it is given.
 */
export function responseShell(input: ShellInput): Json {
  const { finish, request } = input;
  const incomplete = finish?.reason === "length" || finish?.reason === "content_filter";
  const format = request?.responseFormat;
  return {
    id: input.id,
    object: "response",
    created_at: input.createdAt,
    status: !finish ? "in_progress" : incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: incomplete
      ? { reason: finish?.reason === "length" ? "max_output_tokens" : "content_filter" }
      : null,
    instructions: request && request.system.length > 0 ? request.system.join("\n") : null,
    max_output_tokens: request?.maxOutputTokens ?? null,
    model: input.model,
    output: input.output,
    parallel_tool_calls: request?.parallelToolCalls ?? true,
    previous_response_id: null,
    reasoning: { effort: request?.reasoningEffort ?? null, summary: null },
    store: false,
    temperature: request?.temperature ?? null,
    text: {
      format:
        format?.type === "json_schema"
          ? { type: "json_schema", name: format.name ?? "response", schema: format.schema }
          : (format ?? { type: "text" }),
      verbosity: request?.verbosity ?? "medium",
    },
    tool_choice: toolChoice(request?.toolChoice),
    tools: (request?.tools ?? []).map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters,
      strict: tool.strict ?? false,
    })),
    top_p: request?.topP ?? null,
    truncation: "disabled",
    usage: input.usage ? writeResponsesUsage(input.usage) : null,
    user: null,
    metadata: {},
  };
}
