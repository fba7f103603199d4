// A rule of one's own composed with the built-in agentic-workspace/v1 policy, reducing an envelope:
// the output's bytes, the report and the policy's print (issue 32's must-hold, the rules' part).
export const run = async (load) => {
  const { Policy, Reduce, Rule } = await load("")
  const { agenticWorkspaceV1 } = await load("rules")
  const dropNotes = Rule.omit("data.notes", { name: "dropNotes", reason: "notes are re-read from the ticket" })
  const policy = Policy.make({
    name: "tickets+workspace",
    description: "the built-in policy and a rule of our own",
    accepts: agenticWorkspaceV1.accepts,
    rule: Rule.all(agenticWorkspaceV1.rule, Rule.forTool(dropNotes, "workspace_tasks")),
    carry: agenticWorkspaceV1.carry,
    overflow: agenticWorkspaceV1.overflow
  })
  const envelope = {
    protocol: "agentic-workspace/v1",
    tool: "workspace_tasks",
    action: "show",
    ok: true,
    summary: "Board todo_1 has 2 open items",
    data: { board: "todo_1", notes: "a long note", truncated: true, itemsOmitted: 3, items: ["a", "b"] }
  }
  const reduction = Reduce.reduce(JSON.stringify(envelope), { policies: [policy] })
  return { text: reduction.text, report: JSON.parse(JSON.stringify(reduction.report)), printed: Policy.format(policy).split("\n").slice(-2) }
}

export const expected = {
  text:
    '{"protocol":"agentic-workspace/v1","tool":"workspace_tasks","action":"show","ok":true,"summary":"Board todo_1 has 2 open items","data":{"board":"todo_1","truncated":true,"itemsOmitted":3,"items":["a","b"]}}',
  report: {
    route: "envelope",
    policy: "tickets+workspace",
    cap: 32000,
    inputChars: 228,
    outputChars: 206,
    carriedChars: 0,
    rules: [
      {
        rule: "keepHeader",
        reason: "the header names the tool and action that produced the result",
        counts: { kept: 4 },
        entries: [
          { action: "kept", path: "protocol" },
          { action: "kept", path: "tool" },
          { action: "kept", path: "action" },
          { action: "kept", path: "ok" }
        ],
        entriesOmitted: 0
      },
      {
        rule: "dropNotes",
        reason: "notes are re-read from the ticket",
        counts: { omitted: 1 },
        entries: [{ action: "omitted", path: "data.notes" }],
        entriesOmitted: 0
      },
      {
        rule: "keepTruncationFlags",
        reason: "a partial read must never be mistaken for a whole one",
        counts: { kept: 1 },
        entries: [{ action: "kept", path: "data.truncated" }],
        entriesOmitted: 0
      },
      {
        rule: "keepTruncationCounters",
        reason: "a partial read must never be mistaken for a whole one",
        counts: { kept: 1 },
        entries: [{ action: "kept", path: "data.itemsOmitted" }],
        entriesOmitted: 0
      }
    ],
    notes: []
  },
  printed: ['  when tool = "workspace_tasks":', "    dropNotes: omit [data.notes] — notes are re-read from the ticket"]
}
