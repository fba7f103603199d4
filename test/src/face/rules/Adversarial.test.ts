/**
 * Hostile and malformed inputs: `Reduce.reduce` with the built-in policies must
 * not throw, must not pollute prototypes, and must still produce a small,
 * serialisable output that says what it cut.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clip from "../../../../src/core/reduce/Clip.js"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as Json from "../../../../src/face/models/Json.js"
import { resumeLimitChars } from "../../../../src/face/rules/Approvals.js"
import { bulkyChars } from "../../../../src/face/rules/Bulky.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { snippetChars } from "../../../../src/face/rules/Sources.js"

type Loose = Record<string, any>

const reduce = (input: unknown, cap?: number): Reduce.Reduction =>
  Reduce.reduce(input, cap === undefined ? { policies: builtInPolicies } : { policies: builtInPolicies, cap })

const envelope = (data: unknown, extra: Record<string, unknown> = {}): Loose => ({
  protocol: "agentic-workspace/v1",
  tool: "workspace_edit",
  action: "stage",
  ok: true,
  data,
  ...extra
})

const header = { protocol: "agentic-workspace/v1", tool: "workspace_edit", action: "stage", ok: true }
const headerText = "{\"protocol\":\"agentic-workspace/v1\",\"tool\":\"workspace_edit\",\"action\":\"stage\",\"ok\":true"

const clipMarker = /\n…\[clipped: (\d+) of (\d+) characters omitted\]…\n/
const depthMarker = Json.depthMarker(256)

/** Text that is neither JSON nor binary-looking: clipped, never elided. */
const prose = (length: number): string => "lorem ipsum dolor sit amet, ".repeat(Math.ceil(length / 28)).slice(0, length)

/** Counts the UTF-16 code units of `text` that are not part of a surrogate pair. */
const loneSurrogates = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else count++
    } else if (code >= 0xdc00 && code <= 0xdfff) count++
  }
  return count
}

const depthCuts = (reduction: Reduce.Reduction): number =>
  reduction.report.rules.filter((r) => r.rule === "depthLimit").reduce((n, r) => n + (r.counts["depth-cut"] ?? 0), 0)

const entriesOf = (reduction: Reduce.Reduction, rule: string, action: string): ReadonlyArray<string> =>
  reduction.report.rules
    .filter((r) => r.rule === rule)
    .flatMap((r) => r.entries)
    .filter((e) => e.action === action)
    .map((e) => e.path)

const assertNoPollution = (): void => {
  assert.isUndefined(({} as Loose)["polluted"])
  assert.isFalse(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"))
  assert.isUndefined((Object.prototype as Loose)["polluted"])
  assert.isUndefined((Function.prototype as Loose)["polluted"])
  assert.isUndefined((Array.prototype as Loose)["polluted"])
}

describe("adversarial inputs to reduce with the built-in policies", () => {
  describe("size", () => {
    it("a 10 MB string inside an envelope's data is clipped head and tail and the output stays small", () => {
      const blob = prose(10_000_000)
      const reduction = reduce(JSON.stringify(envelope({ blob, id: "tx_1" })))
      assert.strictEqual(reduction.report.route, "envelope")
      assert.isBelow(reduction.text.length, 2_000)
      const out = JSON.parse(reduction.text)
      assert.strictEqual(out.data.id, "tx_1")
      assert.isAtMost(out.data.blob.length, bulkyChars)
      const match = clipMarker.exec(out.data.blob)
      assert.isNotNull(match)
      assert.strictEqual(Number(match![2]), 10_000_000)
      assert.deepStrictEqual(entriesOf(reduction, "pruneBulky", "clipped"), ["data.blob"])
    })

    it("a 10 MB binary-looking string inside data is replaced by a note of its size", () => {
      const reduction = reduce(JSON.stringify(envelope({ screenshot: "QUJD".repeat(2_500_000) })))
      assert.strictEqual(reduction.report.route, "envelope")
      assert.strictEqual(
        JSON.parse(reduction.text).data.screenshot,
        "[elided: 10000000 characters of binary-looking data]"
      )
    })

    it("a 10 MB text that is not JSON takes the generic route, clipped to the cap with a note of how much was cut", () => {
      const text = prose(10_000_000)
      const reduction = reduce(text)
      assert.strictEqual(reduction.report.route, "generic")
      assert.isNull(reduction.report.policy)
      assert.isUndefined(reduction.value)
      assert.isAtMost(reduction.text.length, Reduce.defaultCap)
      const match = clipMarker.exec(reduction.text)
      assert.isNotNull(match)
      const omitted = Number(match![1])
      assert.strictEqual(Number(match![2]), text.length)
      const head = reduction.text.slice(0, match!.index)
      const tail = reduction.text.slice(match!.index + match![0].length)
      assert.strictEqual(head.length + omitted + tail.length, text.length)
      assert.isTrue(text.startsWith(head))
      assert.isTrue(text.endsWith(tail))
      assert.isTrue(reduction.report.notes.some((note) => note.startsWith("not JSON")))
      assert.isTrue(
        reduction.report.notes.includes(`clipped head and tail: ${omitted} of ${text.length} characters cut`)
      )
    })
  })

  describe("nesting 100,000 levels deep", () => {
    const levels = 100_000

    it("as JSON text inside data: no stack overflow, the subtree is cut at the depth limit and the report says so", () => {
      for (const [open, leaf, close] of [["[", "", "]"], ["{\"a\":", "1", "}"]] as const) {
        const text = `${headerText},"data":${open.repeat(levels)}${leaf}${close.repeat(levels)}}`
        const reduction = reduce(text)
        assert.strictEqual(reduction.report.route, "envelope")
        assert.isBelow(reduction.text.length, 5_000)
        const out = JSON.parse(reduction.text)
        assert.strictEqual(out.tool, "workspace_edit")
        assert.include(reduction.text, JSON.stringify(depthMarker))
        assert.strictEqual(depthCuts(reduction), 1)
        assert.strictEqual(reduce(reduction.text).text, reduction.text)
      }
    })

    it("as a bare JSON document: no stack overflow, the generic JSON policy keeps it JSON with the depth cut said", () => {
      for (const [open, leaf, close] of [["[", "", "]"], ["{\"a\":", "1", "}"]] as const) {
        const text = open.repeat(levels) + leaf + close.repeat(levels)
        const reduction = reduce(text)
        assert.strictEqual(reduction.report.route, "generic")
        assert.isAtMost(reduction.text.length, Reduce.defaultCap)
        assert.notMatch(reduction.text, clipMarker)
        assert.include(JSON.stringify(JSON.parse(reduction.text)), "nesting deeper than")
        assert.isTrue(
          reduction.report.notes.some((note) => note.includes("generic JSON policy") && note.includes("levels elided"))
        )
      }
    })

    const deepValue = (): unknown => {
      let value: unknown = "bottom"
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value]
      return value
    }

    it("as a JS value inside data (built iteratively): cut at the depth limit, serialisable, reported", () => {
      const reduction = reduce(envelope(deepValue()))
      assert.strictEqual(reduction.report.route, "envelope")
      const out = JSON.parse(reduction.text)
      assert.strictEqual(out.action, "stage")
      assert.include(reduction.text, JSON.stringify(depthMarker))
      assert.notInclude(reduction.text, "bottom")
      assert.strictEqual(depthCuts(reduction), 1)
      assert.isBelow(reduction.text.length, 5_000)
    })

    it("as a bare JS value: the generic route serialises it with the deep part replaced by a marker", () => {
      const reduction = reduce(deepValue())
      assert.strictEqual(reduction.report.route, "generic")
      assert.include(reduction.text, JSON.stringify(depthMarker))
      assert.notInclude(reduction.text, "bottom")
      JSON.parse(reduction.text)
    })

    it("as a bare JS value: the report says that nesting was cut", () => {
      const reduction = reduce(deepValue())
      assert.isFalse(reduction.report.notes.some((note) => note.includes("passed through unchanged")))
      assert.isTrue(reduction.report.notes.some((note) => /nest|depth/.test(note)))
    })

    it("inside a staged approval's resume: the resume is replaced by its marker, not carried or overflowing the stack", () => {
      let args: unknown = 1
      for (let i = 0; i < levels; i++) args = { a: args }
      const input = envelope({
        status: "pending_approval",
        mode: "ask",
        approval: { id: "approval_deep", kind: "command", resume: { tool: "workspace_command", arguments: args } }
      })
      const reduction = reduce(input)
      assert.strictEqual(reduction.report.route, "envelope")
      const out = JSON.parse(reduction.text)
      assert.strictEqual(out.data.approval.resume.verbatimOmitted, true)
      assert.strictEqual(out.data.approval.resume.approvalId, "approval_deep")
      assert.strictEqual(out.data.status, "pending_approval")
    })
  })

  describe("prototype keys", () => {
    const text = `${headerText},"data":{"__proto__":{"polluted":"yes","id":"tx_proto"},` +
      `"constructor":{"prototype":{"polluted":"yes","kept":1}},"prototype":{"polluted":"yes"},"hasOwnProperty":1},` +
      `"retention":{"omit_when_summarizing":["__proto__.polluted","constructor.prototype","prototype","__proto__",` +
      `"data.constructor.prototype.polluted","constructor","toString"]}}`

    it("__proto__, constructor and prototype keys in data and in the omit list pollute nothing and survive as own keys", () => {
      const reduction = reduce(text)
      assertNoPollution()
      assert.strictEqual(reduction.report.route, "envelope")
      assert.include(reduction.text, "\"__proto__\":{\"polluted\":\"yes\",\"id\":\"tx_proto\"}")
      const out = JSON.parse(reduction.text)
      assert.isTrue(Object.prototype.hasOwnProperty.call(out.data, "__proto__"))
      assert.deepStrictEqual(out.data.constructor, { prototype: { kept: 1 } })
      assert.deepStrictEqual(out.data.prototype, { polluted: "yes" })
      assert.strictEqual(out.data.hasOwnProperty, 1)
      // The reported value holds the key as an own property too, not as its prototype.
      const value = reduction.value as Loose
      assert.isTrue(Object.prototype.hasOwnProperty.call(value["data"], "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(value["data"]), Object.prototype)
      assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
      // The only omission that names an own path of the envelope is applied.
      assert.deepStrictEqual(entriesOf(reduction, "omitDeclared", "omitted"), ["data.constructor.prototype.polluted"])
      assert.strictEqual(reduce(reduction.text).text, reduction.text)
      assertNoPollution()
    })

    it("the same keys in a JS value passed directly pollute nothing, and a declared path through an own __proto__ key omits only that key", () => {
      const input = JSON.parse(text)
      input.retention.omit_when_summarizing = [
        "data.__proto__.polluted",
        "__proto__.polluted",
        "constructor.prototype.polluted"
      ]
      const reduction = reduce(input, 1_000)
      assertNoPollution()
      const out = JSON.parse(reduction.text)
      assert.isTrue(Object.prototype.hasOwnProperty.call(out.data, "__proto__"))
      assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out.data, "__proto__")?.value, { id: "tx_proto" })
      assert.deepStrictEqual(entriesOf(reduction, "omitDeclared", "omitted"), ["data.__proto__.polluted"])
    })
  })

  describe("unicode", () => {
    it("lone surrogates in strings and keys survive, and the output is valid JSON text with no raw lone surrogate", () => {
      const text = `${headerText},"data":{"high":"a\\ud800b","low":"\\udc00","pair":"\\ud83d\\ude00","\\udbff":"key"}}`
      const reduction = reduce(text)
      assert.strictEqual(reduction.report.route, "envelope")
      assert.strictEqual(loneSurrogates(reduction.text), 0)
      const out = JSON.parse(reduction.text)
      assert.strictEqual(out.data.high, "a\ud800b")
      assert.strictEqual(out.data.low, "\udc00")
      assert.strictEqual(out.data.pair, "😀")
      assert.strictEqual(out.data["\udbff"], "key")
      assert.strictEqual(reduce(reduction.text).text, reduction.text)
    })

    it("clipping never splits a surrogate pair: bulky text, clipped snippets and generic text", () => {
      for (const prefix of ["", "a", "ab", "abc"]) {
        const emoji = prefix + "😀".repeat(5_000)
        assert.strictEqual(loneSurrogates(emoji), 0)

        const bulky = reduce(JSON.stringify(envelope({ text: emoji })))
        const clipped: string = JSON.parse(bulky.text).data.text
        assert.match(clipped, clipMarker)
        assert.isAtMost(clipped.length, bulkyChars)
        assert.strictEqual(loneSurrogates(clipped), 0, `bulky, prefix ${JSON.stringify(prefix)}`)

        const research = reduce(
          JSON.stringify({
            ...header,
            tool: "workspace_research",
            action: "deep",
            data: { snippets: [{ url: "u", snippet: emoji }] }
          })
        )
        const snippet: string = JSON.parse(research.text).data.snippets[0].snippet
        assert.match(snippet, clipMarker)
        assert.isAtMost(snippet.length, snippetChars)
        assert.strictEqual(loneSurrogates(snippet), 0, `snippet, prefix ${JSON.stringify(prefix)}`)

        for (const cap of [1_000, 1_001]) {
          const generic = reduce("not json " + emoji, cap)
          assert.strictEqual(generic.report.route, "generic")
          assert.isAtMost(generic.text.length, cap)
          assert.strictEqual(loneSurrogates(generic.text), 0, `generic, cap ${cap}, prefix ${JSON.stringify(prefix)}`)
        }

        assert.strictEqual(loneSurrogates(Clip.headTail(emoji, 777)), 0)
        assert.strictEqual(loneSurrogates(Clip.label(emoji, 64)), 0)
      }
    })
  })

  describe("numbers past 2^53", () => {
    const big = "12345678901234567890123"
    const text = `{"protocol":"agentic-workspace/v1","tool":"workspace_command","action":"status","ok":true,` +
      `"data":{"job":{"id":"job_big","exitCode":${big},"status":"exited"},"exitCode":-${big},` +
      `"ids":[9007199254740993,-9007199254740993,1.5e300],"status":"pending_approval","mode":"ask",` +
      `"approval":{"id":"approval_big","kind":"command","resume":{"tool":"workspace_command","arguments":{"timeout_ms":98765432109876543210}}},` +
      `"stdout":${JSON.stringify(prose(5_000))}}}`

    it("survive byte for byte in the output text, on the envelope and the overflow route, and after a second reduction", () => {
      const reduction = reduce(text)
      assert.strictEqual(reduction.report.route, "envelope")
      assert.include(reduction.text, `"exitCode":${big}`)
      assert.include(reduction.text, `"exitCode":-${big}`)
      assert.include(reduction.text, `"ids":[9007199254740993,-9007199254740993,1.5e+300]`)
      assert.include(
        reduction.text,
        `"resume":{"tool":"workspace_command","arguments":{"timeout_ms":98765432109876543210}}`
      )
      assert.notInclude(reduction.text, "context-compressor:number")
      assert.strictEqual(reduce(reduction.text).text, reduction.text)

      const overflow = reduce(text, 1_000)
      assert.strictEqual(overflow.report.route, "overflow")
      assert.include(
        overflow.text,
        `"resume":{"tool":"workspace_command","arguments":{"timeout_ms":98765432109876543210}}`
      )
      assert.notInclude(overflow.text, "context-compressor:number")
      assert.isAtMost(overflow.text.length, 1_000 + overflow.report.carriedChars)
    })

    it("bigint values passed directly keep their exact digits", () => {
      const reduction = reduce(
        envelope({ exitCode: 12345678901234567890123n, negative: -12345678901234567890123n, small: 7n })
      )
      assert.include(reduction.text, `"exitCode":12345678901234567890123`)
      assert.include(reduction.text, `"negative":-12345678901234567890123`)
      assert.include(reduction.text, `"small":7`)
    })

    it("a truncation counter past 2^53 is kept like a small one", () => {
      const changes =
        `{"protocol":"agentic-workspace/v1","tool":"workspace_inspect","action":"changes","ok":true,"data":{"jobs":[` +
        `{"id":"job_a","stdout":"x","stdoutBytes":${big}},{"id":"job_b","stdout":"x","stdoutBytes":5}]}}`
      const reduction = reduce(changes)
      assert.include(reduction.text, `{"id":"job_b","stdoutBytes":5}`)
      assert.include(reduction.text, `{"id":"job_a","stdoutBytes":${big}}`)
    })

    it("a string that looks like the internal number placeholder stays a string", () => {
      const reduction = reduce(JSON.stringify(envelope({ text: "\u0000context-compressor:number:5" })))
      assert.strictEqual(JSON.parse(reduction.text).data.text, "\u0000context-compressor:number:5")
    })
  })

  describe("declared omissions", () => {
    it("an omit list naming every field: header keys are refused, data and summary are dropped, the omitted approval is noted", () => {
      const retention = {
        importance: "high",
        facts: ["approval_all pending"],
        omit_when_summarizing: [
          "protocol",
          "tool",
          "action",
          "ok",
          "summary",
          "data",
          "retention",
          "data.approval",
          "data.status",
          "retention.omit_when_summarizing",
          "retention.facts"
        ]
      }
      const input = envelope(
        {
          status: "pending_approval",
          mode: "ask",
          approval: {
            id: "approval_all",
            kind: "command",
            resume: { tool: "workspace_command", arguments: { action: "run" } }
          }
        },
        { summary: "staged approval_all", retention }
      )
      for (const reduction of [reduce(JSON.stringify(input)), reduce(input), reduce(input, 1_000)]) {
        const out = JSON.parse(reduction.text)
        assert.strictEqual(reduction.report.route, "envelope")
        assert.deepStrictEqual(out, { ...header, retention })
        assert.deepStrictEqual(
          [...entriesOf(reduction, "omitDeclared", "refused")].sort(),
          ["action", "ok", "protocol", "retention", "retention.facts", "retention.omit_when_summarizing", "tool"]
        )
        assert.sameMembers([...entriesOf(reduction, "omitDeclared", "omitted")], ["data", "summary"])
        assert.isTrue(
          reduction.report.notes.some((note) => note.startsWith("data.approval") && note.includes("declared omission")),
          JSON.stringify(reduction.report.notes)
        )
        assert.strictEqual(reduction.report.carriedChars, 0)
        assert.notInclude(reduction.text, "\"resume\"")
      }
    })

    it("an omit list naming paths outside the envelope, globs, non-strings or itself touches nothing and throws nothing", () => {
      const data = { a: 1, nope: { x: 1 }, items: [1, 2, 3], id: "tx_outside" }
      const retention = {
        importance: "high",
        facts: ["f"],
        omit_when_summarizing: [
          // At most 20 entries: a longer list is itself capped like any kept array.
          "../../etc/passwd",
          "data.nope.deeper",
          "",
          ".",
          "data.",
          "__proto__.polluted",
          "constructor.prototype",
          "__proto__",
          42,
          null,
          { path: "data.a" },
          "retention.omit_when_summarizing",
          "retention",
          "*",
          "**",
          "data.*",
          "data.**",
          "data.items.[]",
          "data.items.[0]",
          "data.items.9"
        ]
      }
      const input = envelope(data, { summary: "s", retention })
      for (const reduction of [reduce(JSON.stringify(input)), reduce(input)]) {
        assertNoPollution()
        assert.strictEqual(reduction.report.route, "envelope")
        const out = JSON.parse(reduction.text)
        assert.deepStrictEqual(Object.keys(out), Object.keys(input))
        assert.deepStrictEqual(out.data, data)
        assert.strictEqual(out.summary, "s")
        assert.deepStrictEqual(out.retention, retention)
        for (const key of ["protocol", "tool", "action", "ok"]) assert.strictEqual(out[key], input[key])
        assert.deepStrictEqual(entriesOf(reduction, "omitDeclared", "omitted"), [])
        assert.sameMembers([...entriesOf(reduction, "omitDeclared", "refused")], [
          "",
          "retention.omit_when_summarizing",
          "retention"
        ])
      }
    })

    it("an omit list given as a single string is read as one literal path and never reaches outside", () => {
      const data = { a: 1, nope: { x: 1 } }
      for (
        const [declared, expected] of [
          ["../../etc/passwd", data],
          ["__proto__.polluted", data],
          ["retention", data],
          ["data.nope", { a: 1 }]
        ] as const
      ) {
        const input = envelope(data, { retention: { omit_when_summarizing: declared } })
        const reduction = reduce(JSON.stringify(input))
        assertNoPollution()
        const out = JSON.parse(reduction.text)
        assert.deepStrictEqual(out.data, expected, declared)
        assert.deepStrictEqual(out.retention, { omit_when_summarizing: declared })
        for (const key of ["protocol", "tool", "action", "ok"]) assert.strictEqual(out[key], input[key])
      }
    })
  })

  describe("an envelope whose data is not an object", () => {
    const cases: ReadonlyArray<readonly [string, unknown, (out: Loose) => void]> = [
      ["a long string", prose(6_000), (out) => {
        assert.isAtMost(out.data.length, bulkyChars)
        assert.match(out.data, clipMarker)
      }],
      ["an array of 50 entries", Array.from({ length: 50 }, (_, i) => i), (out) => {
        assert.deepStrictEqual(out.data, Array.from({ length: 20 }, (_, i) => i))
        assert.strictEqual(out.dataOmitted, 30)
      }],
      ["null", null, (out) => assert.isNull(out.data)],
      ["a number", 42, (out) => assert.strictEqual(out.data, 42)]
    ]
    for (const [label, data, check] of cases) {
      it(`data as ${label} is reduced on the envelope route, keeping the header, and reduces to itself`, () => {
        const reduction = reduce(
          JSON.stringify(
            envelope(data, { retention: { omit_when_summarizing: ["data.approval", "data.length", "data.nope"] } })
          )
        )
        assert.strictEqual(reduction.report.route, "envelope")
        const out = JSON.parse(reduction.text)
        for (const [key, value] of Object.entries(header)) assert.strictEqual(out[key], value)
        check(out)
        assert.strictEqual(reduce(reduction.text).text, reduction.text)
      })
    }
  })

  describe("JS values that are not JSON", () => {
    it("undefined, functions, symbols, bigints and dates are converted the way JSON.stringify would, bigints exactly", () => {
      const input = envelope({
        missing: undefined,
        fn: () => 1,
        sym: Symbol("s"),
        small: 42n,
        huge: 2n ** 80n,
        when: new Date(0),
        list: [undefined, () => 1, Symbol("t"), 1, new Date(86_400_000)],
        nested: { keep: "yes", drop: undefined }
      })
      const reduction = reduce(input)
      assert.strictEqual(reduction.report.route, "envelope")
      const out = JSON.parse(reduction.text)
      assert.deepStrictEqual(Object.keys(out.data), ["small", "huge", "when", "list", "nested"])
      assert.strictEqual(out.data.small, 42)
      assert.include(reduction.text, `"huge":${(2n ** 80n).toString()}`)
      assert.strictEqual(out.data.when, "1970-01-01T00:00:00.000Z")
      assert.deepStrictEqual(out.data.list, [null, null, null, 1, "1970-01-02T00:00:00.000Z"])
      assert.deepStrictEqual(out.data.nested, { keep: "yes" })
      assert.strictEqual(reduce(reduction.text).text, reduction.text)
    })

    it("a cyclic value that no policy accepts takes the generic route with the cycle replaced by a marker", () => {
      const value: Loose = { a: 1, list: [] }
      value["self"] = value
      value["list"].push(value)
      const reduction = reduce(value)
      assert.strictEqual(reduction.report.route, "generic")
      const out = JSON.parse(reduction.text)
      assert.deepStrictEqual(out, { a: 1, list: ["[circular reference elided]"], self: "[circular reference elided]" })
    })

    it("a cyclic envelope value is reduced quickly with the cycle replaced by a marker", () => {
      const once: Loose = { note: "n" }
      once["again"] = once
      const single = reduce(envelope(once))
      assert.strictEqual(single.report.route, "envelope")
      assert.isBelow(single.text.length, 1_000)
      assert.include(single.text, "[circular reference elided]")

      const twice: Loose = { note: "n" }
      twice["again"] = twice
      twice["andAgain"] = twice
      const double = reduce(envelope(twice))
      assert.strictEqual(double.report.route, "envelope")
      assert.include(double.text, "[circular reference elided]")
    }, 10_000)
  })

  describe("limits that an envelope or a caller can defeat", () => {
    it("a staged approval's fields outside resume.arguments are not carried past the cap unbounded", () => {
      const preview = prose(200_000)
      const input = envelope({
        status: "pending_approval",
        mode: "ask",
        approval: {
          id: "approval_big",
          kind: "transaction",
          title: "t",
          destructive: false,
          preview,
          resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: "tx_1" } }
        }
      })
      const reduction = reduce(JSON.stringify(input), 2_000)
      assert.notInclude(reduction.text, preview)
      assert.isBelow(reduction.text.length, 2_000 + resumeLimitChars)
      assert.include(
        reduction.text,
        `"resume":{"tool":"workspace_edit","arguments":{"action":"commit","transaction_id":"tx_1"}}`
      )
    })

    it("a NaN cap falls back to a finite cap", () => {
      const text = prose(100_000)
      const generic = reduce(text, Number.NaN)
      assert.isTrue(Number.isFinite(generic.report.cap))
      assert.isAtMost(generic.text.length, generic.report.cap)
      assert.notInclude(generic.text, "NaN")
      const small = reduce(JSON.stringify(envelope({ a: 1 })), Number.NaN)
      assert.strictEqual(small.report.route, "envelope")
    })

    it("an omit list of 100,000 entries is applied (declared paths are indexed by key, not scanned per node)", () => {
      const input = envelope({ a: 1 }, {
        retention: { omit_when_summarizing: Array.from({ length: 100_000 }, (_, i) => `data.k${i}`) }
      })
      const reduction = reduce(JSON.stringify(input))
      assert.deepStrictEqual(JSON.parse(reduction.text).data, { a: 1 })
    })
  })
})
