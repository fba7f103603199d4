import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as EnvelopeData from "../../../../src/core/reduce/EnvelopeData.js"
import * as Envelope from "../../../../src/face/models/Envelope.js"
import { prop } from "../../../support/Property.js"

// Values near the envelope's shape: each header field present or not, of the right type or not.
const field = <A>(right: fc.Arbitrary<A>) =>
  fc.oneof(right, fc.constant(undefined), fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.anything())
const nearEnvelope = fc.record(
  {
    protocol: fc.oneof(fc.constant(EnvelopeData.protocol), fc.constant("agentic-workspace/v2"), fc.anything()),
    tool: field(fc.string()),
    action: field(fc.string()),
    ok: field(fc.boolean()),
    summary: field(fc.string()),
    data: fc.anything(),
    retention: fc.anything(),
    extra: fc.anything()
  },
  { requiredKeys: [] }
)

describe("the core's envelope guard", () => {
  prop(
    "accepts exactly what the Effect 3 face's Schema accepts",
    [fc.oneof(nearEnvelope, fc.anything())],
    ([value]) => {
      assert.strictEqual(EnvelopeData.isEnvelope(value), Envelope.isEnvelope(value))
    },
    { fastCheck: { numRuns: 2_000 } }
  )

  it("reads own fields only: a header on the prototype is not an envelope's", () => {
    const header = { protocol: EnvelopeData.protocol, tool: "workspace_edit", action: "stage" }
    assert.isTrue(EnvelopeData.isEnvelope({ ...header }))
    assert.isFalse(EnvelopeData.isEnvelope(Object.create(header)))
    assert.isTrue(EnvelopeData.isEnvelope({ ...header, ok: undefined, summary: undefined }))
    assert.isFalse(EnvelopeData.isEnvelope({ ...header, ok: "yes" }))
  })

  // Skipped on Effect 4, whose Schema.is reads a struct's fields on the prototype too (Effect 3's
  // reads own fields only): there the face's Envelope.isEnvelope accepts Object.create(header).
  it.skipIf(TestCompat.major === 4)("so does the Effect 3 face's Schema", () => {
    const header = { protocol: EnvelopeData.protocol, tool: "workspace_edit", action: "stage" }
    assert.strictEqual(EnvelopeData.isEnvelope(Object.create(header)), Envelope.isEnvelope(Object.create(header)))
  })
})
