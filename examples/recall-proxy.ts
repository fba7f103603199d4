/**
 * Recall through the proxy: started with `--recall`, the proxy gives every
 * compacted request the `context_recall` tool and answers the model's recall
 * calls itself, so the client below is an ordinary OpenAI client that never
 * sees them. The proxy is started as the program does:
 *
 *     context-compressor proxy --upstream https://api.openai.com --recall
 *
 * (or `recall = true` under `[proxy]` in `.context-compressor/config.toml`).
 */
import OpenAI from "openai"

// ---- what a user writes ----------------------------------------------------------
export async function askThroughProxy(proxyUrl: string, messages: Array<OpenAI.ChatCompletionMessageParam>) {
  const client = new OpenAI({
    baseURL: `${proxyUrl}/v1`,
    apiKey: process.env["OPENAI_API_KEY"] ?? "sk-test",
    maxRetries: 0
  })
  const { data, response } = await client.chat.completions
    .create({ model: "gpt-4.1", messages }, { headers: { "x-session-id": "run-42" } })
    .withResponse()
  // `x-context-compressor` says what the proxy did: `compacted; …; recall=1` when it served one round.
  return { message: data.choices[0]!.message, usage: data.usage, report: response.headers.get("x-context-compressor") }
}
// ---------------------------------------------------------------------------------
