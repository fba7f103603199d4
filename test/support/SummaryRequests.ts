/**
 * The summariser request the summariser layers' tests send: a short span, the
 * prompt ending on the first heading, a budget to pass on.
 */
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"

/** One small summariser request. */
export const request = new Summarizer.SummaryRequest({
  model: "session-model",
  system: "You summarise a coding session.",
  prompt:
    "<transcript>\n<message role=\"user\">fix the parser</message>\n</transcript>\nWrite the summary.\n## Primary request",
  maxTokens: 1_234,
  agentic: false,
  namespace: "test/v1",
  span: []
})

/** The same request in the shared-prefix shape: a view as sent (a call and its result among it), then the prompt. */
export const sharedRequest = new Summarizer.SummaryRequest({
  ...request,
  prefix: [
    new Transcript.SystemMessage({ id: "s0", content: "You are a coding agent." }),
    new Transcript.UserMessage({ id: "u1", content: "fix the parser" }),
    new Transcript.AssistantMessage({
      id: "a2",
      content: "Reading it.",
      toolCalls: [new Transcript.ToolCall({ id: "call_1", name: "bash", arguments: "{\"command\":\"cat parser.ts\"}" })]
    }),
    new Transcript.ToolResult({ id: "r3", toolCallId: "call_1", name: "bash", content: "export const parse = () => 1" })
  ]
})
