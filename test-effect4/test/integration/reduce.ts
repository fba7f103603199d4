// docs/integration.md, "Effect 4": reduce.ts, as the page shows it (its imports of the package
// written as paths here; test/integration.test.ts holds the page to this file and to what it prints).
import { Reduce } from "../../../src/effect4/index.js"
import { tickets } from "./tickets.js"

const toolResult = {
  protocol: "agentic-workspace/v1",
  tool: "workspace_tasks",
  action: "show",
  ok: true,
  summary: "Board todo_1 has 2 open items",
  data: { board: "todo_1", notes: "three paragraphs of notes", truncated: true, itemsOmitted: 3 }
}

const reduction = Reduce.reduce(JSON.stringify(toolResult), { policies: [tickets] })
console.log(reduction.text)
for (const rule of reduction.report.rules) {
  console.log(`${rule.rule}: ${rule.entries.map((entry) => `${entry.action} ${entry.path}`).join(", ")}`)
}
