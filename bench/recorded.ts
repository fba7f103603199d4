/**
 * The long sessions of the responsiveness benches: the recorded agent runs of
 * `../shared/transcripts` (or `CONTEXT_COMPRESSOR_TRANSCRIPTS`) laid end to
 * end, their ids renumbered, to any length; without them, the deterministic
 * sessions of `bench/sessions.ts`. And the same session as a document of
 * OpenAI chat completions messages, as an agent would post it.
 */
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Transcript from "../src/face/models/Transcript.js"
import { fromOpenAI, hasTranscripts, transcriptsDirectory } from "../test/openai.js"
import * as Sessions from "./sessions.js"

/** The recorded runs end to end, ids renumbered (`m<i>`, calls `c<i>-<id>`), to `length` messages; the first run's system message only. */
const fromRecorded = (length: number): Transcript.Transcript | undefined => {
  const directory = process.env["CONTEXT_COMPRESSOR_TRANSCRIPTS"] ??
    (hasTranscripts() ? transcriptsDirectory : "/work/shared/transcripts")
  let names: Array<string>
  try {
    names = Fs.readdirSync(directory).filter((name) => name.endsWith(".json")).sort()
  } catch {
    return undefined
  }
  if (names.length === 0) return undefined
  const runs = names.map((name) =>
    fromOpenAI(JSON.parse(Fs.readFileSync(NodePath.join(directory, name), "utf8")) as ReadonlyArray<unknown>)
  )
  const out: Array<Transcript.Message> = []
  for (let lap = 0; out.length < length; lap++) {
    for (const run of runs) {
      for (const message of run) {
        if (out.length >= length) break
        if (message._tag === "System" && out.length > 0) continue
        const id = `m${out.length}`
        const call = (callId: string) => `c${lap}-${callId}`
        switch (message._tag) {
          case "System":
            out.push(new Transcript.SystemMessage({ id, content: message.content }))
            break
          case "User":
            out.push(new Transcript.UserMessage({ id, content: message.content }))
            break
          case "Assistant":
            out.push(
              new Transcript.AssistantMessage({
                id,
                content: message.content,
                toolCalls: message.toolCalls.map((c) =>
                  new Transcript.ToolCall({ id: call(c.id), name: c.name, arguments: c.arguments })
                )
              })
            )
            break
          case "ToolResult":
            out.push(
              new Transcript.ToolResult({
                id,
                toolCallId: call(message.toolCallId),
                content: message.content,
                ...(message.name === undefined ? {} : { name: message.name })
              })
            )
            break
          case "Compacted":
            break
        }
      }
    }
  }
  return out
}

/** A session of `length` messages, and where it came from. */
export const sessionOf = (length: number): { readonly transcript: Transcript.Transcript; readonly source: string } => {
  const recorded = fromRecorded(length)
  return recorded !== undefined
    ? { transcript: recorded, source: "the recorded runs end to end" }
    : { transcript: Sessions.session(length, Sessions.realistic), source: "bench/sessions.ts (no recorded runs found)" }
}

/** A transcript as OpenAI chat completions messages. */
export const toOpenAI = (transcript: Transcript.Transcript): Array<Record<string, unknown>> =>
  transcript.flatMap((message): Array<Record<string, unknown>> => {
    switch (message._tag) {
      case "System":
        return [{ role: "system", content: message.content }]
      case "User":
        return [{ role: "user", content: message.content }]
      case "Assistant":
        return [
          message.toolCalls.length === 0
            ? { role: "assistant", content: message.content }
            : {
              role: "assistant",
              content: message.content === "" ? null : message.content,
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments }
              }))
            }
        ]
      case "ToolResult":
        return [{ role: "tool", tool_call_id: message.toolCallId, content: message.content }]
      case "Compacted":
        return []
    }
  })
