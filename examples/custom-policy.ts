/**
 * A policy of one's own, as docs/rules.md walks through it: tool results of a
 * made-up "ticketing/v2" protocol. Run it with
 * `npx tsx examples/custom-policy.ts`.
 */
import { Condition, Policy, Reduce, Rule } from "context-compressor"
import { ArrayCap, builtInPolicies, Bulky, Truncation } from "context-compressor/rules"

/** Ticket ids and their state are what the agent resumes from. */
export const keepTickets = Rule.all(
  Rule.keep("data.tickets.id", { name: "keepTickets", reason: "a ticket is re-read by its id" }),
  Rule.keep("data.tickets.state", { name: "keepTickets", reason: "open or closed decides what comes next" })
)

/** Attachments are base64 blobs: the agent can fetch them again by ticket id. */
export const dropAttachments = Rule.prune("data.tickets.attachments", {
  name: "dropAttachments",
  reason: "attachments are re-fetched by ticket id"
})

/** The policy: accepted when `protocol` is "ticketing/v2". */
export const ticketingV2 = Policy.make({
  name: "ticketing/v2",
  description: "tool results of the ticketing/v2 protocol",
  accepts: Condition.equals("protocol", "ticketing/v2"),
  rule: Rule.all(
    keepTickets,
    dropAttachments,
    Truncation.keepTruncationFlags,
    Truncation.keepTruncationCounters,
    ArrayCap.capArrays,
    Bulky.pruneBulky
  )
})

/** A ticketing/v2 result with 30 tickets, each with an attachment. */
export const exampleResult = {
  protocol: "ticketing/v2",
  data: {
    tickets: Array.from({ length: 30 }, (_, i) => ({
      id: `T-${1000 + i}`,
      state: i % 3 === 0 ? "closed" : "open",
      body: `Ticket ${i}: ` + "the printer on floor 3 jams again. ".repeat(60),
      attachments: [{ name: "photo.png", base64: "iVBORw0KGgo".padEnd(4000, "A") }]
    }))
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const reduction = Reduce.reduce(exampleResult, { policies: [ticketingV2, ...builtInPolicies] })
  console.log(Policy.format(ticketingV2))
  console.log(
    `\n${JSON.stringify(exampleResult).length} → ${reduction.text.length} characters, route ${reduction.report.route}`
  )
  console.log(JSON.stringify(reduction.value, null, 2).slice(0, 800))
}
