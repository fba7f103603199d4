// docs/integration.md, "Effect 4": tickets.test.ts, as the page shows it (its imports of the
// package written as paths here; test/integration.test.ts holds the page to this file).
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { Reduce, Rule } from "../../../src/effect4/index.js"
import { dropNotes, tickets } from "./tickets.js"

const Board = Schema.Struct({
  notes: Schema.String,
  truncated: Schema.Boolean,
  itemsOmitted: Schema.Int
})

describe("tickets+workspace", () => {
  it.prop("drops a board's notes and keeps what says the read was partial", [Board], ([board]) => {
    const toolResult = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_tasks",
      action: "show",
      ok: true,
      data: board
    }
    const { text } = Reduce.reduce(JSON.stringify(toolResult), { policies: [tickets] })
    const kept = JSON.stringify({ truncated: board.truncated, itemsOmitted: board.itemsOmitted })
    assert.deepStrictEqual(JSON.parse(text).data, JSON.parse(kept))
  })

  it.prop("our rule's normal form is equivalent to it", [Schema.Boolean], ([first]) => {
    const rule = first ? Rule.all(dropNotes, Rule.all()) : Rule.first(Rule.all(dropNotes))
    assert.isTrue(Rule.equivalence(Rule.normalize(rule), rule))
  })
})
