import { assert, describe, it } from "@effect/vitest"
import { exampleResult, ticketingV2 } from "../examples/custom-policy.js"
import * as Reduce from "../src/face/engine/Reduce.js"
import { builtInPolicies } from "../src/face/rules/index.js"

describe("the custom policy of docs/rules.md", () => {
  it("keeps every ticket id and state, drops attachments, and caps the list with its counter", () => {
    const reduction = Reduce.reduce(exampleResult, { policies: [ticketingV2, ...builtInPolicies] })
    assert.strictEqual(reduction.report.policy, "ticketing/v2")
    const data = (reduction.value as { data: { tickets: Array<Record<string, unknown>>; ticketsOmitted: number } }).data
    assert.strictEqual(data.tickets.length, 20)
    assert.strictEqual(data.ticketsOmitted, 10)
    data.tickets.forEach((ticket, i) => {
      assert.strictEqual(ticket["id"], `T-${1000 + i}`)
      assert.isString(ticket["state"])
      assert.notProperty(ticket, "attachments")
    })
    assert.isBelow(reduction.text.length, JSON.stringify(exampleResult).length / 5)
  })

  it("takes no part for inputs of another protocol", () => {
    const reduction = Reduce.reduce({ protocol: "other", data: {} }, { policies: [ticketingV2, ...builtInPolicies] })
    assert.strictEqual(reduction.report.route, "generic")
  })
})
