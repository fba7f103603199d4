/**
 * Generators of hostile inputs for the property and fuzz tests of `reduce` and
 * `compact`: deep nesting, long strings, number literals a double cannot hold,
 * broken encodings, hostile omit lists, malformed JSON, huge arrays, and
 * transcripts carrying them. Each case is bytes (what a file holds) with a
 * name for the failure message; sizes are kept small enough for the suite to
 * stay fast, the shapes are those that broke the program.
 */
import * as fc from "fast-check"

export interface HostileCase {
  readonly name: string
  readonly bytes: Uint8Array
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

const envelope = (data: string, extra = ""): string =>
  `{"protocol":"agentic-workspace/v1","tool":"workspace_edit","action":"stage","ok":true,"summary":"Staged","data":${data}${extra}}`

/** Nesting `depth` levels deep, of arrays, objects or both, around a leaf. */
export const deepText = (depth: number, kind: "array" | "object" | "mixed", leaf = "1"): string => {
  let open = ""
  let close = ""
  for (let i = 0; i < depth; i++) {
    const array = kind === "array" || (kind === "mixed" && i % 2 === 0)
    open += array ? "[" : "{\"a\":"
    close = (array ? "]" : "}") + close
  }
  return open + leaf + close
}

const inexactNumber = fc.constantFrom(
  "123456789012345678901234567890",
  "-98765432109876543210",
  "1e400",
  "-1e400",
  "1e-400",
  "0.12345678901234567890123",
  "9007199254740993",
  "-0"
)

/** A JSON value (as text) of moderate size with hostile number literals at random places. */
const numbersText = fc.array(fc.tuple(fc.string({ maxLength: 8 }), inexactNumber), { minLength: 1, maxLength: 12 }).map(
  (entries) =>
    `{${
      entries.map(([key, literal], i) => `${JSON.stringify(key + i)}:${i % 3 === 0 ? `[${literal}]` : literal}`).join(
        ","
      )
    }}`
)

const omitList = fc.constantFrom(
  "[\"__proto__\",\"constructor.prototype\",\"data\",\"\",\"..\",\"data.*.*.*\"]",
  `[${Array.from({ length: 5_000 }, (_, i) => `"data.k${i}"`).join(",")}]`,
  "[1,null,{\"path\":\"data\"},[\"data\"]]",
  "\"data\"",
  "[\"retention\",\"retention.omit_when_summarizing\",\"protocol\"]"
)

/** Random bytes that are not UTF-8, spliced into otherwise valid JSON. */
const brokenEncoding = fc.uint8Array({ minLength: 1, maxLength: 16 }).map((noise) => {
  const head = utf8("{\"text\":\"")
  const tail = utf8("\"}")
  const invalid = Uint8Array.from(noise, (byte) => byte | 0x80)
  return Uint8Array.from([...head, ...invalid, ...tail])
})

/** Hostile tool results for `reduce`. */
export const toolResult: fc.Arbitrary<HostileCase> = fc.oneof(
  fc.tuple(
    fc.integer({ min: 1_000, max: 20_000 }),
    fc.constantFrom("array", "object", "mixed") as fc.Arbitrary<"array" | "object" | "mixed">
  ).map(
    ([depth, kind]) => ({ name: `bare ${kind} nesting ${depth} deep`, bytes: utf8(deepText(depth, kind)) })
  ),
  fc.tuple(
    fc.integer({ min: 1_000, max: 20_000 }),
    fc.constantFrom("array", "object") as fc.Arbitrary<"array" | "object">
  ).map(([depth, kind]) => ({
    name: `envelope with data ${depth} deep`,
    bytes: utf8(envelope(`{"x":${deepText(depth, kind)}}`))
  })),
  fc.tuple(fc.integer({ min: 100_000, max: 2_000_000 }), inexactNumber).map(([length, literal]) => ({
    name: `envelope with a ${length}-character string and ${literal}`,
    bytes: utf8(envelope(`{"diff":"${"d".repeat(length)}","id":${literal}}`))
  })),
  numbersText.map((text) => ({ name: `JSON with inexact numbers ${text.slice(0, 60)}`, bytes: utf8(text) })),
  numbersText.map((text) => ({ name: `envelope with inexact numbers`, bytes: utf8(envelope(text)) })),
  omitList.map((list) => ({
    name: `hostile omit list ${list.slice(0, 40)}`,
    bytes: utf8(
      envelope("{\"status\":\"ok\",\"k1\":\"v\"}", `,"retention":{"importance":"high","omit_when_summarizing":${list}}`)
    )
  })),
  brokenEncoding.map((bytes) => ({ name: "invalid UTF-8 inside JSON", bytes })),
  fc.integer({ min: 10_000, max: 100_000 }).map((length) => ({
    name: `array of ${length} entries`,
    bytes: utf8(
      JSON.stringify(
        Array.from({ length }, (_, i) => ({ i, note: "entry" })).concat([{ truncated: true, linesOmitted: 3 } as never])
      )
    )
  })),
  fc.tuple(fc.string({ maxLength: 200 }), fc.integer({ min: 1, max: 60 })).map(([text, cut]) => ({
    name: "truncated JSON",
    bytes: utf8(envelope(`{"k":${JSON.stringify(text)}}`).slice(0, cut))
  })),
  fc.string({ maxLength: 2_000 }).map((text) => ({ name: "arbitrary text", bytes: utf8(text) }))
)

const openAiMessages = (extra: string): string =>
  `[{"role":"system","content":"be brief"},{"role":"user","content":"hi","x_meta":${extra}},{"role":"assistant","content":"hello"}]`

/** Hostile transcripts for `compact`. */
export const transcript: fc.Arbitrary<HostileCase> = fc.oneof(
  fc.tuple(
    fc.integer({ min: 1_000, max: 20_000 }),
    fc.constantFrom("array", "object") as fc.Arbitrary<"array" | "object">
  ).map(([depth, kind]) => ({
    name: `a message with an extra field ${depth} deep`,
    bytes: utf8(openAiMessages(deepText(depth, kind)))
  })),
  inexactNumber.map((literal) => ({
    name: `a message with ${literal} in an extra field`,
    bytes: utf8(openAiMessages(`{"n":${literal}}`))
  })),
  fc.constantFrom("wizard", "", "USER", "__proto__").map((role) => ({
    name: `unknown role ${JSON.stringify(role)}`,
    bytes: utf8(`[{"role":"user","content":"hi"},{"role":${JSON.stringify(role)},"content":"x"}]`)
  })),
  brokenEncoding.map((bytes) => ({
    name: "invalid UTF-8 in a message",
    bytes: Uint8Array.from([...utf8("[{\"role\":\"user\",\"content\":\""), ...bytes.slice(9, -2), ...utf8("\"}]")])
  })),
  fc.integer({ min: 200_000, max: 2_000_000 }).map((length) => ({
    name: `a ${length}-character message`,
    bytes: utf8(`[{"role":"user","content":"${"w ".repeat(length / 2)}"}]`)
  })),
  fc.tuple(fc.string({ maxLength: 100 }), fc.integer({ min: 1, max: 40 })).map(([text, cut]) => ({
    name: "truncated transcript",
    bytes: utf8(openAiMessages(JSON.stringify(text)).slice(0, cut))
  })),
  fc.constantFrom("", "null", "[]", "{}", "[1,2,3]", "[{\"role\":\"user\",\"content\":{\"deep\":[[[]]]}}]", "\n\n").map(
    (text) => ({
      name: `degenerate document ${JSON.stringify(text)}`,
      bytes: utf8(text)
    })
  )
)

/** Lines that show a stack trace was printed. */
export const stackTrace = /^\s+at .+\(?.*:\d+:\d+\)?$|RangeError|Maximum call stack|getOrThrow/m
