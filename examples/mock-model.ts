/**
 * The stand-in model of the AI SDK examples: a mock language model of the
 * specification version the installed `ai` expects, so that every example
 * runs on ai@5, ai@6 and ai@7 as it is. It is the AI SDK's own mock of that
 * version (`ai/test`'s `MockLanguageModelV4` on ai@7, `V3` on ai@6, `V2` on
 * ai@5), and its answers are written in that version's shapes (ai@6 and ai@7
 * report usage per kind of token and the finish reason as
 * `{ unified, raw }`; ai@5 as plain numbers and a string).
 *
 * The examples only use it in place of a provider's model (`openai("gpt-4.1")`,
 * …): nothing of it is part of context-compressor.
 */
import type { LanguageModelV2, LanguageModelV2Prompt } from "@ai-sdk/provider"

/** One answer of the model: text, or one tool call. */
export type Answer =
  | { readonly text: string }
  | { readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown } }

type Mocks = Record<string, (new(options: Record<string, unknown>) => unknown) | undefined>

/**
 * A mock model answering each call with `answer(prompt)`, by `doGenerate`
 * and by `doStream`. Typed as ai@5's model (the version this repository
 * type-checks against); at run time it is the installed `ai`'s.
 */
export const mockModel = async (answer: (prompt: LanguageModelV2Prompt) => Answer): Promise<LanguageModelV2> => {
  const mocks = (await import("ai/test")) as unknown as Mocks
  const version = mocks["MockLanguageModelV4"] !== undefined
    ? "v4"
    : mocks["MockLanguageModelV3"] !== undefined
    ? "v3"
    : "v2"
  const Mock = mocks[`MockLanguageModel${version.toUpperCase()}`]!
  const legacy = version === "v2"
  const usage = legacy
    ? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    : {
      inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 0, text: 0, reasoning: undefined }
    }
  const finish = (reason: "stop" | "tool-calls") => (legacy ? reason : { unified: reason, raw: reason })
  const content = (given: Answer) =>
    "text" in given
      ? [{ type: "text", text: given.text }]
      : [{
        type: "tool-call",
        toolCallId: given.toolCall.toolCallId,
        toolName: given.toolCall.toolName,
        input: JSON.stringify(given.toolCall.input)
      }]
  const reasonOf = (given: Answer) => finish("text" in given ? "stop" : "tool-calls")
  return new Mock({
    doGenerate: async ({ prompt }: { prompt: LanguageModelV2Prompt }) => {
      const given = answer(prompt)
      return { content: content(given), finishReason: reasonOf(given), usage, warnings: [] }
    },
    doStream: async ({ prompt }: { prompt: LanguageModelV2Prompt }) => {
      const given = answer(prompt)
      const parts = "text" in given
        ? [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: given.text }, {
          type: "text-end",
          id: "t"
        }]
        : content(given)
      const chunks = [{ type: "stream-start", warnings: [] }, ...parts, {
        type: "finish",
        finishReason: reasonOf(given),
        usage
      }]
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk)
            controller.close()
          }
        })
      }
    }
  }) as LanguageModelV2
}
