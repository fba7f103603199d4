/**
 * The summariser request the summariser layers' tests send: a short span, the
 * prompt ending on the first heading, a budget to pass on.
 */
import * as Summarizer from "../../services/Summarizer.js"

/** One small summariser request. */
export const request = new Summarizer.SummaryRequest({
  model: "session-model",
  system: "You summarise a coding session.",
  prompt: "<transcript>\n<message role=\"user\">fix the parser</message>\n</transcript>\nWrite the summary.\n## Primary request",
  maxTokens: 1_234,
  agentic: false,
  namespace: "test/v1",
  span: []
})
