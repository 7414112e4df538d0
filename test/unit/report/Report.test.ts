import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { StoredRunConfig } from "../../../src/domain/RunConfig.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { accuracyChart, renderHtml, unpackBodies } from "../../../src/programs/report/ReportHtml.js"
import { formatTable, renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import type { ReportInput } from "../../../src/programs/report/Summary.js"
import { escapeHtml } from "../../../src/text/Html.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"

/** config_json as the store decodes it. */
const stored = Schema.decodeUnknownSync(StoredRunConfig)

const run = { runId: "run-1", startedAt: 0, finishedAt: 90_000, status: "completed" as const }

const input: ReportInput = {
  run,
  predictions: [
    prediction({ questionId: "q1", taskType: "Counting Problem", duration: "long", stepsUsed: 4, finishedAt: 50_000 }),
    prediction({ questionId: "q2", taskType: "Counting Problem", duration: "short", correct: false, prediction: "C" }),
    // A null prediction is wrong even if a caller wrote correct = true.
    prediction({
      questionId: "q3",
      taskType: "OCR Problems",
      duration: "medium",
      prediction: null,
      correct: true,
      stopReason: "parse_error",
      stepsUsed: 0
    }),
    prediction({
      questionId: "q4",
      taskType: "OCR Problems",
      duration: "short",
      stepsUsed: 6,
      stopReason: "budget_exceeded"
    }),
    prediction({ questionId: "q5", taskType: null, duration: null, stepsUsed: 3 })
  ],
  steps: [],
  calls: [
    call({ questionId: "q1", role: "agent", promptTokens: 100, completionTokens: 10 }),
    call({ questionId: "q1", role: "tool", promptTokens: 50, completionTokens: 5 }),
    call({
      questionId: "q2",
      role: "tool",
      promptTokens: 30,
      completionTokens: 0,
      status: "error",
      errorReason: "Timeout"
    }),
    call({ questionId: null, role: "embed", promptTokens: 7, completionTokens: 0 })
  ]
}

describe("summarize", () => {
  it("a shared run while it works: the queue's progress and one row per worker, live or not, in text, JSON and html", () => {
    const claim = (ownerId: string, heartbeatAt: number) => ({
      ownerId,
      host: "h",
      pid: 1,
      claimedAt: 0,
      heartbeatAt,
      expiresAt: heartbeatAt + 60_000
    })
    const shared: ReportInput = {
      ...input,
      run: {
        ...run,
        status: "running",
        finishedAt: null,
        claims: [claim("h:1:aaaa", 100_000), claim("h:2:bbbb", 10_000)],
        progress: { total: 12, done: 5, claimed: 4 }
      },
      predictions: input.predictions.map((p, i) => ({
        ...p,
        worker: i < 3 ? "h:1:aaaa" : i < 4 ? "h:2:bbbb" : "h:3:cccc"
      }))
    }
    const summary = summarize(shared, { now: 120_000 })
    assert.deepStrictEqual(summary.progress, { total: 12, done: 5, claimed: 4, open: 3 })
    assert.deepStrictEqual(summary.workers.map((w) => [w.worker, w.questions, w.live]), [
      ["h:1:aaaa", 3, true],
      ["h:2:bbbb", 1, false],
      ["h:3:cccc", 1, false]
    ])
    const text = renderText(summary)
    assert.include(text, "Progress 5/12 saved (41.7%) · 4 in hand · 3 open · 1 live worker\n")
    assert.match(
      text,
      /Workers\nWorker +Questions +State +Last heartbeat\n[- ]+\nh:1:aaaa +3 +live +1970-01-01T00:01:40\.000Z\nh:2:bbbb +1 +lease expired/
    )
    assert.match(text, /h:3:cccc +1 +done +—/)
    assert.deepStrictEqual(JSON.parse(renderJson(summary)).progress.open, 3)
    const page = renderHtml(shared, summary)
    assert.include(page, "<h2>Workers</h2>")
    assert.include(page, "<tr><td>Progress</td><td>5/12 saved (41.7%)")
    // A finished run of one owner: neither.
    const plain = renderText(
      summarize({ ...input, predictions: input.predictions.map((p) => ({ ...p, worker: "h:1:aaaa" })) })
    )
    assert.notInclude(plain, "Workers")
    assert.notInclude(plain, "Progress")
  })

  it("sums how the agent's replies were read, per shape, under the agent model's name", () => {
    const shaped: ReportInput = {
      ...input,
      predictions: [
        prediction({ questionId: "a", stepsUsed: 4, replyShapes: { clean: 3, "think-stripped": 1 } }),
        prediction({ questionId: "b", stepsUsed: 2, replyShapes: { "think-stripped": 2, repaired: 1 } }),
        // Stored before replies were classified: no shapes, still counted in the steps.
        prediction({ questionId: "c", stepsUsed: 2 })
      ]
    }
    const summary = summarize(shaped)
    assert.deepStrictEqual(summary.replyShapes, {
      model: "reasoner",
      steps: 8,
      shapes: [{ shape: "clean", steps: 3 }, { shape: "think-stripped", steps: 3 }, { shape: "repaired", steps: 1 }]
    })
    const text = renderText(summary)
    assert.include(text, "Reply shapes of reasoner")
    assert.match(text, /think-stripped\s+3\s+37\.5%/)
    const page = renderHtml(shaped)
    assert.include(page, "<h2>Reply shapes of reasoner</h2>")
    assert.include(page, "<tr><td>think-stripped</td><td class=\"n\">3</td></tr>")
  })

  it("counts accuracy overall, per task type and per duration, null predictions unanswered, not wrong", () => {
    const summary = summarize(input)
    assert.deepInclude(summary.overall, { correct: 3, wrong: 1, unanswered: 1, total: 5, accuracy: 0.6 })
    assert.deepStrictEqual(
      summary.byTaskType.map((g) => [g.key, g.correct, g.wrong, g.unanswered, g.total, g.accuracy]),
      [
        ["Counting Problem", 1, 1, 0, 2, 0.5],
        ["OCR Problems", 1, 0, 1, 2, 0.5],
        ["(none)", 1, 0, 0, 1, 1]
      ]
    )
    assert.deepStrictEqual(summary.byDuration.map((g) => [g.key, g.correct, g.total]), [
      ["short", 1, 2],
      ["medium", 0, 1],
      ["long", 1, 1],
      ["(none)", 1, 1]
    ])
  })

  it("groups by domain when questions carry one, with a Wilson interval on every accuracy", () => {
    assert.deepStrictEqual(summarize(input).byDomain, [])
    const withDomains = summarize({
      ...input,
      predictions: input.predictions.map((p, i) => ({ ...p, domain: i < 2 ? "Sports" : null }))
    })
    assert.deepStrictEqual(withDomains.byDomain.map((g) => [g.key, g.correct, g.total]), [["Sports", 1, 2], [
      "(none)",
      2,
      3
    ]])
    // 3/5 and 1/2: the published-value checks are in Stats.test.ts; here the wiring.
    assert.deepStrictEqual(
      [withDomains.overall.interval!.low.toFixed(4), withDomains.byDomain[0]!.interval!.high.toFixed(4)],
      ["0.2307", "0.9055"]
    )
    assert.include(renderText(withDomains), "Domain  Correct")
  })

  it("counts stop reasons, mean steps, tokens per role and wall time", () => {
    const summary = summarize(input)
    assert.deepStrictEqual(summary.stopReasons, [
      { reason: "finished", count: 3 },
      { reason: "budget_exceeded", count: 1 },
      { reason: "parse_error", count: 1 },
      { reason: "error", count: 0 }
    ])
    assert.strictEqual(summary.meanSteps, (4 + 2 + 0 + 6 + 3) / 5)
    assert.deepStrictEqual(summary.tokens.byRole, [
      // Retried: unknown (null) for calls stored without their attempts.
      { role: "agent", calls: 1, errors: 0, retried: null, promptTokens: 100, completionTokens: 10 },
      { role: "tool", calls: 2, errors: 1, retried: null, promptTokens: 80, completionTokens: 5 },
      { role: "vlm", calls: 0, errors: 0, retried: 0, promptTokens: 0, completionTokens: 0 },
      { role: "embed", calls: 1, errors: 0, retried: null, promptTokens: 7, completionTokens: 0 },
      { role: "ocr", calls: 0, errors: 0, retried: 0, promptTokens: 0, completionTokens: 0 },
      { role: "judge", calls: 0, errors: 0, retried: 0, promptTokens: 0, completionTokens: 0 }
    ])
    assert.deepStrictEqual([summary.tokens.promptTokens, summary.tokens.completionTokens], [187, 15])
    assert.deepStrictEqual([summary.wallTimeMs, summary.startedAt, summary.finishedAt], [
      90_000,
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:01:30.000Z"
    ])
  })

  it("measures an unfinished run up to its last saved question, and an empty one as nothing", () => {
    const unfinished = summarize({ ...input, run: { ...run, finishedAt: null, status: "running" } })
    assert.strictEqual(unfinished.wallTimeMs, 50_000)
    const empty = summarize({ run: { ...run, finishedAt: null }, predictions: [], calls: [] })
    assert.deepStrictEqual(
      [empty.overall, empty.meanSteps, empty.wallTimeMs, empty.byTaskType.length],
      [{ correct: 0, wrong: 0, unanswered: 0, total: 0, unscored: 0, accuracy: null, interval: null }, null, null, 0]
    )
  })
})

describe("token details", () => {
  const detailed: ReportInput = {
    ...input,
    calls: [
      call({ questionId: "q1", role: "agent", promptTokens: 1000, cachedPromptTokens: 900, reasoningTokens: 40 }),
      call({ questionId: "q1", role: "agent", promptTokens: 1000, cachedPromptTokens: 0, reasoningTokens: 10 }),
      // A call that did not say counts in the prompt tokens, not in the cached ones.
      call({ questionId: "q1", role: "agent", promptTokens: 500 }),
      call({ questionId: "q1", role: "tool", promptTokens: 200, cachedPromptTokens: 50 }),
      call({ questionId: null, role: "embed", promptTokens: 7 })
    ]
  }

  it("sums cached and reasoning tokens per role with the cached share, only for roles that reported them", () => {
    assert.deepStrictEqual(summarize(detailed).tokenDetails, [
      { role: "agent", promptTokens: 2500, cachedPromptTokens: 900, cachedShare: 0.36, reasoningTokens: 50 },
      { role: "tool", promptTokens: 200, cachedPromptTokens: 50, cachedShare: 0.25, reasoningTokens: null }
    ])
    assert.deepStrictEqual(summarize(input).tokenDetails, [])
  })

  it("shows them in text, JSON and HTML, and nothing for runs that have none", () => {
    const text = renderText(summarize(detailed))
    const block = text.trimEnd().split("\n\n").find((b) => b.startsWith("Token details"))!.split("\n")
    assert.deepStrictEqual(block.slice(1), [
      "Role   Prompt tokens  Cached  Cached share  Reasoning tokens",
      "-----  -------------  ------  ------------  ----------------",
      "agent          2,500     900         36.0%                50",
      "tool             200      50         25.0%                 —"
    ])
    assert.notInclude(renderText(summarize(input)), "Token details")
    assert.deepStrictEqual(JSON.parse(renderJson(summarize(detailed))).tokenDetails[1], {
      role: "tool",
      promptTokens: 200,
      cachedPromptTokens: 50,
      cachedShare: 0.25,
      reasoningTokens: null
    })
    const page = renderHtml(detailed)
    assert.include(page, "<h2>Cached and reasoning tokens per role</h2>")
    assert.include(
      page,
      "<tr><td>agent</td><td class=\"n\">2,500</td><td class=\"n\">900</td><td class=\"n\">36.0%</td><td class=\"n\">50</td></tr>"
    )
    assert.notInclude(renderHtml(input), "Cached and reasoning tokens")
  })
})

describe("cost and time", () => {
  const priced: ReportInput = {
    run,
    predictions: [
      prediction({ questionId: "q1", startedAt: 0, finishedAt: 10_000 }),
      prediction({ questionId: "q2", startedAt: 0, finishedAt: 30_000 })
    ],
    steps: [],
    calls: [
      call({ questionId: "q1", role: "agent", promptTokens: 1_000_000, completionTokens: 100_000, durationMs: 400 }),
      {
        ...call({ questionId: "q1", role: "agent", promptTokens: 1_000_000, completionTokens: 0, durationMs: 100 }),
        cachedPromptTokens: 500_000
      },
      call({ questionId: "q2", role: "tool", promptTokens: 2_000_000, completionTokens: 0, durationMs: 1_500 }),
      call({ questionId: null, role: "embed", promptTokens: 4_000_000, completionTokens: 0, durationMs: 50 })
    ]
  }
  const prices = {
    agent: { input: 1, cachedInput: 0.25, output: 4 },
    tool: { input: 0.5, output: 1 },
    embed: { input: 0.02, output: 0 }
  }

  it("sums cost per question, per role and per run at the given prices, cached prompt tokens at the cached price", () => {
    const { cost } = summarize(priced, { prices })
    // agent: 1M·$1 + 0.1M·$4 = $1.40, then 0.5M·$1 + 0.5M cached·$0.25 = $0.625; tool 2M·$0.5; embed 4M·$0.02.
    assert.closeTo(cost.byQuestion["q1"]!, 2.025, 1e-12)
    assert.closeTo(cost.byQuestion["q2"]!, 1, 1e-12)
    assert.closeTo(cost.total!, 2.025 + 1 + 0.08, 1e-12)
    assert.closeTo(cost.perQuestionMean!, (2.025 + 1) / 2, 1e-12)
    assert.deepStrictEqual(cost.byRole.map((r) => r.role), ["agent", "tool", "vlm", "embed", "ocr", "judge"])
    assert.closeTo(cost.byRole[3]!.usd!, 0.08, 1e-12)
    assert.deepStrictEqual([cost.unpriced, cost.cachedTokensRecorded], [[], true])
  })

  it("says unknown when a role that used tokens has no price, and charges full input price without cached counts", () => {
    const { cost } = summarize(priced, { prices: { agent: prices.agent, tool: prices.tool } })
    assert.deepStrictEqual([cost.total, cost.unpriced], [null, ["embed"]])
    assert.closeTo(cost.byQuestion["q1"]!, 2.025, 1e-12)
    const old = summarize({ ...priced, calls: priced.calls.map(({ cachedPromptTokens: _, ...c }) => c) }, { prices })
    assert.closeTo(old.cost.byQuestion["q1"]!, 2.4, 1e-12)
    assert.isFalse(old.cost.cachedTokensRecorded)
    assert.include(renderText(old), "every prompt token charged at the full input price")
  })

  it("summarizes call latency per role and time per question", () => {
    const summary = summarize(priced)
    assert.deepStrictEqual(summary.latency[0], { role: "agent", count: 2, p50Ms: 100, p90Ms: 400, maxMs: 400 })
    assert.deepStrictEqual(summary.latency[2], { role: "vlm", count: 0, p50Ms: null, p90Ms: null, maxMs: null })
    assert.deepStrictEqual(summary.questionTime, {
      count: 2,
      p50Ms: 10_000,
      p90Ms: 30_000,
      maxMs: 30_000,
      meanMs: 20_000
    })
    assert.match(renderText(summary), /agent\s+2\s+0\s+—\s+2,000,000\s+100,000\s+unknown\s+0\.1s\s+0\.4s\s+0\.4s/)
  })
})

describe("renderText / renderJson", () => {
  it("a question file without task types or durations: each axis is one 'none' line, no table or chart of '(none)'", () => {
    const bare: ReportInput = {
      ...input,
      predictions: input.predictions.map((p) => ({ ...p, taskType: null, duration: null }))
    }
    const summary = summarize(bare)
    const text = renderText(summary)
    assert.include(text, "\nTask type: none (no question has one)\n")
    assert.include(text, "\nDuration: none (no question has one)\n")
    assert.notInclude(text, "(none)")
    assert.notInclude(text, "Cost per question by task type")
    const page = renderHtml(bare, summary)
    assert.include(page, "Task type: none (no question has one)")
    assert.notInclude(page, "Accuracy per task type")
    assert.notInclude(page, "Accuracy per duration")
    assert.notInclude(page, "Cost per question by task type")
    // One question with a task type brings the table back, its other questions on a "(none)" row.
    assert.include(renderText(summarize(input)), "\nTask type ")
  })

  it("a custom question file without task_type: no empty task-type table or chart, one 'none' line", () => {
    const custom: ReportInput = {
      ...input,
      run: { ...run, config: stored({ benchmark: "custom" }) },
      // Stored as the empty task type, as Custom.ts reads a row without task_type.
      predictions: input.predictions.map((p) => ({ ...p, taskType: "", duration: null }))
    }
    const summary = summarize(custom)
    const text = renderText(summary)
    assert.include(text, "\nTask type: none (no question has one)\n")
    assert.notMatch(text, /^Task type +Correct/m)
    assert.notInclude(text, "Cost per question by task type")
    const page = renderHtml(custom, summary)
    assert.include(page, "Task type: none (no question has one)")
    assert.notInclude(page, "Accuracy per task type")
  })

  it("prints aligned tables and the headline figures", () => {
    const text = renderText(summarize(input))
    assert.include(text, "Accuracy 60.0% [23.1–88.2] 95% CI (3/5) · wrong 1 · unanswered 1 · mean steps 3.00")
    assert.include(text, "wall time 1m 30s")
    const block = text.split("\n\n").find((b) => b.startsWith("Task type"))!.split("\n")
    assert.deepStrictEqual(block, [
      "Task type         Correct  Wrong  Unanswered  Total  Accuracy        95% CI",
      "----------------  -------  -----  ----------  -----  --------  ------------",
      "Counting Problem        1      1           0      2     50.0%    [9.5–90.5]",
      "OCR Problems            1      0           1      2     50.0%    [9.5–90.5]",
      "(none)                  1      0           0      1    100.0%  [20.7–100.0]"
    ])
    assert.match(text.split("\n").find((line) => line.startsWith("total"))!, /^total\s+4\s+1\s+—\s+187\s+15\s+unknown$/)
    // Without prices, cost is unknown, never $0, and the text says what to set.
    assert.include(text, "Cost unknown · per question unknown")
    assert.include(text, "set VTREE_AGENT_PRICE, VTREE_TOOL_PRICE, VTREE_EMBED_PRICE or pass --prices FILE")
  })

  it("aligns columns by terminal width: a CJK cell takes two columns a character, a combining mark none", () => {
    const table = formatTable(["Domain", "Total"], [["生活记录", "12"], ["Cafe\u0301", "3"], ["Sports", "100"]], [
      false,
      true
    ])
    assert.deepStrictEqual(table.split("\n"), [
      "Domain    Total",
      "--------  -----",
      "生活记录     12",
      "Cafe\u0301          3",
      "Sports      100"
    ])
  })

  it("emits the summary as JSON that reads back equal", () => {
    const summary = summarize(input)
    assert.deepStrictEqual(JSON.parse(renderJson(summary)), JSON.parse(JSON.stringify(summary)))
  })
})

describe("errors and retries", () => {
  const refused = "llm: Transport: llm: connection failed (connect ECONNREFUSED 127.0.0.1:9)"
  const failing: ReportInput = {
    run: { runId: "run-7", startedAt: 0, finishedAt: 10_000, status: "failed" },
    predictions: [
      prediction({ questionId: "q1", prediction: null, correct: false, stopReason: "error", error: refused }),
      prediction({ questionId: "q2", prediction: null, correct: false, stopReason: "error", error: refused }),
      prediction({
        questionId: "q3",
        prediction: null,
        correct: false,
        stopReason: "error",
        // A key echoed by a proxy, a URL with credentials and a control sequence: none reaches the report.
        error: "tool-llm: Server: HTTP 502 from http://admin:hunter2@proxy.local/v1 (Authorization: Bearer " +
          "sk-live-0123456789abcdef) \u001b[31mred\u001b[0m\nsecond line"
      }),
      prediction({
        questionId: "q4",
        stopReason: "parse_error",
        prediction: null,
        error: "3 unparseable replies in a row"
      }),
      prediction({ questionId: "q5" })
    ],
    steps: [],
    calls: [
      call({ questionId: "q1", role: "agent", attempts: 1 }),
      call({ questionId: "q1", role: "agent", attempts: 3 }),
      call({ questionId: "q2", role: "agent", attempts: 5, status: "error", errorReason: "Transport" }),
      call({ questionId: "q2", role: "tool", attempts: 2 }),
      call({ questionId: "q5", role: "tool" })
    ]
  }

  it("lists the most common error messages with counts, secrets masked, and the command that asks the error questions again", () => {
    const { errors } = summarize(failing)
    assert.strictEqual(errors.questions, 3)
    assert.deepStrictEqual(errors.messages.map((m) => m.count), [2, 1, 1])
    assert.strictEqual(errors.messages[0]!.message, refused)
    const masked = errors.messages.find((m) => m.message.startsWith("tool-llm"))!.message
    assert.notInclude(masked, "hunter2")
    assert.notInclude(masked, "sk-live-0123456789abcdef")
    assert.notInclude(masked, "second line")
    assert.include(masked, "proxy.local")
    assert.strictEqual(errors.retryCommand, "vtree infer --resume --retry-errors --run-id run-7")
    assert.deepStrictEqual(summarize(input).errors, { questions: 0, messages: [], retryCommand: null })
  })

  it("counts retried calls per role: calls that took more than one attempt, failed or not", () => {
    const byRole = new Map(summarize(failing).tokens.byRole.map((r) => [r.role, r]))
    assert.deepStrictEqual([byRole.get("agent")!.calls, byRole.get("agent")!.errors, byRole.get("agent")!.retried], [
      3,
      1,
      2
    ])
    // One tool call recorded its attempts (2): the role's count is over the calls that did.
    assert.strictEqual(byRole.get("tool")!.retried, 1)
    assert.strictEqual(byRole.get("vlm")!.retried, 0)
  })

  it("shows them in the text report, terminal-safe, and in the JSON", () => {
    const text = renderText(summarize(failing))
    const block = text.split("\n\n").find((b) => b.startsWith("Errors"))!.split("\n")
    assert.strictEqual(block[0], "Errors: 3 questions ended in error; the most common messages")
    assert.match(block[3]!, /^\s+2 {2}llm: Transport: llm: connection failed \(connect ECONNREFUSED 127\.0\.0\.1:9\)$/)
    assert.isTrue(block.some((line) => /^\s+1 {2}tool-llm: Server: HTTP 502/.test(line)))
    assert.strictEqual(
      block.at(-1),
      "Ask them again once the cause is fixed: vtree infer --resume --retry-errors --run-id run-7 (with the run's --trees and --db)"
    )
    assert.notMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f]/)
    assert.notInclude(text, "hunter2")
    assert.match(text.split("\n").find((line) => line.startsWith("agent"))!, /^agent\s+3\s+1\s+2\s/)
    const json = JSON.parse(renderJson(summarize(failing))) as { errors: { retryCommand: string } }
    assert.strictEqual(json.errors.retryCommand, "vtree infer --resume --retry-errors --run-id run-7")
    // A run without errors prints no Errors block.
    assert.isFalse(renderText(summarize(input)).includes("Errors:"))
  })

  it("shows them in the html report: the Errors block with the retry command, and a Retried column per role", () => {
    const page = renderHtml(failing)
    const section = page.slice(
      page.indexOf(`<h2 id="errors">`),
      page.indexOf("</table>", page.indexOf(`<h2 id="errors">`))
    )
    assert.include(section, "Errors: 3 questions ended in error; the most common messages")
    assert.include(
      section,
      `<tr><td class="n">2</td><td>llm: Transport: llm: connection failed (connect ECONNREFUSED 127.0.0.1:9)</td></tr>`
    )
    assert.include(page, "<code>vtree infer --resume --retry-errors --run-id run-7</code>")
    assert.notInclude(page, "hunter2")
    assert.notInclude(page, "sk-live-0123456789abcdef")
    // The message's control sequence is shown, not obeyed, and html in a message stays text.
    assert.notMatch(page, /\u001b/)
    const calls = page.slice(page.indexOf("<h2>Model calls per role</h2>"))
    assert.include(calls, "<th>Errors</th><th>Retried</th>")
    assert.include(calls, `<tr><td>agent</td><td class="n">3</td><td class="n">1</td><td class="n">2</td>`)
    assert.include(calls, `<tr><td>tool</td><td class="n">2</td><td class="n">0</td><td class="n">1</td>`)
    assert.include(calls, `<tr><td><b>total</b></td><td class="n">5</td><td class="n">1</td><td class="n">3</td>`)
    // Unknown attempts read as —, as in the text report; a run without errors has no Errors block.
    const plain = renderHtml(input)
    assert.notInclude(plain, `id="errors"`)
    assert.include(plain, `<tr><td>agent</td><td class="n">1</td><td class="n">0</td><td class="n">—</td>`)
  })
})

describe("renderHtml", () => {
  const hostile = "<script>alert('x')</script> & \"quotes\""
  const page = renderHtml({
    run: { ...run, runId: "run<1>" },
    predictions: [
      prediction({ questionId: "q<1>", taskType: hostile, question: hostile, options: [hostile], evidence: hostile }),
      prediction({ questionId: "q2", taskType: "OCR Problems", prediction: null, correct: false, error: hostile })
    ],
    steps: [
      { questionId: "q<1>", ...step(1, { output: hostile, thought: hostile, args: { query: hostile } }) },
      { questionId: "q<1>", ...step(2, { tool: "submit_answer" }) }
    ],
    calls: [call({ questionId: "q<1>", parentStep: 1, role: "tool" })]
  })

  // The trajectory bodies travel packed (gzipped JSON in one inert script element); read them back whole.
  const bodies = unpackBodies(page)
  const whole = page + bodies.join("\n")

  it("escapes every string that came from data", () => {
    // The page's own script is the only one that runs; the other holds the packed trajectory bodies.
    assert.strictEqual((page.match(/<script>/g) ?? []).length, 1)
    assert.strictEqual((page.match(/<script type="application\/gzip" id="bodies">/g) ?? []).length, 1)
    assert.strictEqual(bodies.length, 2)
    assert.notInclude(whole, "<script>alert")
    assert.notInclude(whole, "q<1>")
    assert.include(page, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;")
    assert.include(bodies[0]!, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;")
    assert.strictEqual(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })

  it("is one self-contained page with the chart, the question table and each trajectory", () => {
    assert.isTrue(page.startsWith("<!DOCTYPE html>"))
    assert.match(page, /<svg [^>]*aria-label="Accuracy per task type"/)
    assert.notMatch(page, /\s(src|href)="(https?:)?\/\//)
    assert.notInclude(page, "<link")
    assert.strictEqual((page.match(/<details class="q"/g) ?? []).length, 2)
    assert.strictEqual((whole.match(/<details class="step"/g) ?? []).length, 2)
    assert.include(whole, "<summary>Step 2 · submit_answer</summary>")
    assert.include(whole, "<summary>Thought</summary>")
    assert.include(whole, "Model calls: tool 1, 50 tokens")
    assert.include(page, `<a href="#q1">q2</a>`)
    // q2 has no prediction: unanswered, shown apart from wrong.
    assert.include(page, `<span class="muted" title="unanswered">?</span>`)
    assert.match(page, /<tr><td>Unanswered<\/td><td>1<\/td><\/tr>/)
  })

  it("forced answers are counted apart with their accuracy, and the accuracy without them, in text, JSON and html", () => {
    const forcedRun: ReportInput = {
      ...input,
      run: { ...run, config: stored({ finalAnswer: true }) },
      predictions: [
        prediction({ questionId: "f1", stopReason: "budget_exceeded", forced: true }),
        prediction({ questionId: "f2", stopReason: "budget_exceeded", forced: true, prediction: "C", correct: false }),
        prediction({ questionId: "f3", stopReason: "budget_exceeded", prediction: null, correct: false }),
        prediction({ questionId: "f4" })
      ]
    }
    const summary = summarize(forcedRun)
    assert.strictEqual(summary.forced.finalAnswer, true)
    assert.deepInclude(summary.forced.answers, { correct: 1, wrong: 1, unanswered: 0, total: 2, accuracy: 0.5 })
    // Left unanswered, the forced answers would have earned nothing: 1 of 4.
    assert.deepInclude(summary.forced.withoutForced, { correct: 1, unanswered: 3, total: 4, accuracy: 0.25 })
    assert.strictEqual(summary.overall.accuracy, 0.5)
    const text = renderText(summary)
    assert.include(
      text,
      "Final answer at the budget on · forced answers 2, accuracy 50.0% [9.5–90.5] (1/2) · accuracy without them 25.0% (1/4)"
    )
    assert.deepStrictEqual(JSON.parse(renderJson(summary)).forced.answers.total, 2)
    const page = renderHtml({ ...forcedRun, steps: [] }, summary)
    assert.include(page, `<td id="forced">on · forced answers 2`)
    assert.strictEqual([...page.matchAll(/<td>budget_exceeded · forced answer<\/td>/g)].length, 2)
    assert.include(page, "<td>budget_exceeded</td>")
  })

  it("a run without the final answer, or stored before the mode was recorded, says so and has no forced answers", () => {
    for (const config of [{ finalAnswer: false }, {}]) {
      const summary = summarize({ ...input, run: { ...run, config: stored(config) } })
      assert.isFalse(summary.forced.finalAnswer)
      assert.strictEqual(summary.forced.answers.total, 0)
      assert.deepStrictEqual(summary.forced.withoutForced, summary.overall)
      assert.include(renderText(summary), "Final answer at the budget off (--no-final-answer) · no forced answers")
    }
  })

  it("draws one bar per task type, as long as its accuracy", () => {
    const svg = accuracyChart([
      {
        key: "A",
        correct: 1,
        wrong: 3,
        unanswered: 0,
        total: 4,
        unscored: 0,
        accuracy: 0.25,
        interval: { low: 0.1, high: 0.5 }
      },
      { key: "B", correct: 0, wrong: 0, unanswered: 0, total: 0, unscored: 0, accuracy: null, interval: null }
    ])
    assert.deepStrictEqual(
      [...svg.matchAll(/fill="#2f81f7"/g)].length,
      2
    )
    assert.include(svg, `width="105.0" height="16" fill="#2f81f7"`)
    assert.include(svg, `width="0.0" height="16" fill="#2f81f7"`)
    // One error bar, for the group that has an interval: from 10 % to 50 % of the 420-pixel bar.
    assert.strictEqual([...svg.matchAll(/class="err"/g)].length, 1)
    assert.include(svg, `<line x1="282.0" y1="12" x2="450.0" y2="12"/>`)
  })
})
