// `vtree tree import` in-process: a small file in each released layout → trees that `tree validate`
// accepts and the agent answers on through openai-sim (observe_frame says the tree has no frames);
// the tool model writing the cards, resumably; frames from --videos with the real ffmpeg; each refusal.
import { afterEach, assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, toolModel } from "../../support/harness/Policy.js"
import { makeSyntheticVideo } from "../../support/media/SyntheticVideo.js"
import * as Sim from "../../support/openai-sim/index.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
const folder = () => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  return temp.dir
}
const write = (file: string, value: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}
const perSecond = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => text(i))

interface Layout {
  readonly input: string
  readonly video: string
  readonly extra?: ReadonlyArray<string>
}

/** One small file (or folder) per layout, and the video id its tree gets. */
const layouts = (dir: string): Record<string, Layout> => ({
  llovi: {
    input: write(join(dir, "lavila_subset.json"), {
      ego1: perSecond(45, (i) => (i < 25 ? "#C C cuts an onion" : "#C C washes a pan"))
    }),
    video: "ego1"
  },
  "llovi (NExT-QA)": {
    input: write(join(dir, "llava1.5_fps1.json"), {
      "4010069381": { "0": "a child rides a bike", "1": "the child falls" }
    }),
    video: "4010069381"
  },
  videoagent: {
    input: (() => {
      write(join(dir, "va", "clip1_cap.json"), { "0": "a man opens a fridge", "1": "he takes out milk" })
      return join(dir, "va")
    })(),
    video: "clip1"
  },
  "videoagent-memory": {
    input: write(join(dir, "mem", "clip2.json"), { "0_60": "a cat sleeps", "60_120": "the cat wakes up" }),
    video: "clip2",
    extra: ["--fps", "30"]
  },
  dvd: {
    input: write(join(dir, "dvd", "vidA", "captions.json"), {
      "0_9": { caption: "Anna enters the kitchen." },
      "10_29": { caption: ["Anna boils water.", "She pours tea."] },
      subject_registry: {
        person_1: { name: "Anna", appearance: "red coat", identity: "the host", first_seen: "00:00:02" }
      }
    }),
    video: "vidA"
  },
  "dvd database": {
    input: write(join(dir, "dvdb", "vidB", "database.json"), {
      embedding_dim: 2,
      data: [
        { __id__: "a", time_start_secs: 0, time_end_secs: 15, caption: "[From 00:00:00 to 00:00:15] A dog runs." },
        {
          __id__: "b",
          time_start_secs: 15,
          time_end_secs: 30,
          caption: "[From 00:00:15 to 00:00:30] The dog fetches a ball."
        }
      ],
      matrix: "AAAAAAAA",
      additional_data: { video_length: "00:00:40", subject_registry: { dog_1: { name: "Rex", first_seen: 0 } } }
    }),
    video: "vidB"
  },
  videorag: {
    input: write(join(dir, "kv_store_video_segments.json"), {
      lecture: {
        "0": { content: "A teacher writes on a board.", time: "0-30", transcript: "Today we learn fractions." },
        "1": { content: "Students raise hands.", time: "30-60", transcript: "" }
      }
    }),
    video: "lecture"
  },
  jsonl: {
    input: write(
      join(dir, "captions.jsonl"),
      [
        { video_id: "j1", start: 0, end: 4, text: "a car parks" },
        { video_id: "j1", start: 4, end: 9, text: "a woman gets out" }
      ].map((row) => JSON.stringify(row)).join("\n")
    ),
    video: "j1"
  }
})

const tree = (trees: string, video: string) =>
  JSON.parse(readFileSync(join(trees, video, "tree.json"), "utf8")) as {
    videoID: string
    has_frames?: boolean
    entities?: ReadonlyArray<Record<string, unknown>>
    build: {
      source: { file: string; sha256: string; format: string }
      cards: { written_by: string; calls?: number; degraded?: { events: number; scenes: number } }
      frames: { extracted: number }
    }
    nodes: Record<
      string,
      { level: number; card: Record<string, unknown>; subtitle: string; time_range: [number, number] }
    >
  }

/** An agent that views an event, asks for its first frame, then answers A. */
const agentScript = (video: string) => (request: Sim.SimRequest): Sim.ChatReply => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string }>
  const step = messages.filter((message) => message.role === "assistant").length
  const event = `${video}_L1_000_L2_000`
  const action = step === 0
    ? { tool: "view_node", args: { node_id: event, question: "What happens?" } }
    : step === 1
    ? { tool: "observe_frame", args: { node_ids: [`${event}_L3_000`], question: "What happens?" } }
    : { tool: "submit_answer", args: { answer: "A", evidence: "the captions", reasoning: "read them" } }
  return { content: JSON.stringify({ reflect: {}, plan: {}, action }) }
}

describe("vtree tree import", () => {
  it("imports a file of each layout offline; tree validate accepts every tree; tree.json records source, sha256 and layout", async () => {
    const dir = folder()
    const trees = join(dir, "trees")
    for (const [name, layout] of Object.entries(layouts(join(dir, "in")))) {
      const result = await runCli(["tree", "import", layout.input, "--out", trees, ...(layout.extra ?? [])], {})
      assert.strictEqual(result.code, 0, `${name}: ${result.stderr}`)
      assert.include(result.stdout, `imported 1 tree`)
      const validated = await runCli(["tree", "validate", join(trees, layout.video)], {})
      assert.strictEqual(validated.code, 0, `${name}: ${validated.stdout}${validated.stderr}`)
      assert.include(validated.stdout, "frames: none")
      const written = tree(trees, layout.video)
      assert.strictEqual(written.has_frames, false)
      assert.strictEqual(written.build.cards.written_by, "deterministic (captions joined, no model)")
      assert.match(written.build.source.sha256, /^[0-9a-f]{64}$/)
      const expected = name.startsWith("dvd") ? "dvd" : name.startsWith("llovi") ? "llovi" : name
      assert.strictEqual(written.build.source.format, expected, name)
    }
    const ego = tree(trees, "ego1")
    const levels = Object.values(ego.nodes).map((node) => node.level)
    assert.deepStrictEqual([1, 2, 3].map((level) => levels.filter((l) => l === level).length), [1, 3, 45])
    assert.strictEqual(ego.build.source.file, "lavila_subset.json")
    assert.deepStrictEqual(tree(trees, "clip2").nodes["clip2_L1_000_L2_000_L3_001"]!.time_range, [2, 4])
    assert.strictEqual(
      tree(trees, "lecture").nodes["lecture_L1_000_L2_000_L3_000"]!.subtitle,
      "Today we learn fractions."
    )
    assert.deepStrictEqual(tree(trees, "vidA").entities, [
      { id: "person_1", name: "Anna", appearance: "red coat", identity: "the host", first_seen: 2 }
    ])
  })

  it("runs the agent on an imported tree: view_node shows the entity registry, observe_frame says there are no frames", async () => {
    const dir = folder()
    const trees = join(dir, "trees")
    const dvd = layouts(join(dir, "in"))["dvd"]!
    assert.strictEqual((await runCli(["tree", "import", dvd.input, "--out", trees], {})).code, 0)
    const questions = write(
      join(dir, "q.jsonl"),
      JSON.stringify({
        video_id: "1",
        videoID: "vidA",
        question_id: "q1",
        duration: "short",
        domain: "Life",
        sub_category: "Home",
        task_type: "Action Recognition",
        question: "What does Anna make?",
        options: ["A. Tea", "B. Soup", "C. Bread", "D. Salad"],
        answer: "A"
      })
    )
    const sim = await Sim.start({
      chat: { [agentModel]: agentScript("vidA"), [toolModel]: () => ({ content: "Anna boils water and pours tea." }) }
    })
    cleanups.push(() => sim.close())
    const db = join(dir, "runs.db")
    const result = await runCli(["infer", "--trees", trees, "--questions", questions, "--db", db], simEnv(sim.url))
    assert.strictEqual(result.code, 0, result.stderr)
    const handle = new Database(db, { readonly: true })
    cleanups.push(() => handle.close())
    const steps = handle.prepare("SELECT tool, output FROM steps ORDER BY step").all() as Array<
      { tool: string; output: string }
    >
    assert.deepStrictEqual(steps.map((s) => s.tool), ["view_node", "observe_frame", "submit_answer"])
    assert.include(steps[0]!.output, "Anna (person_1): red coat; the host")
    assert.include(steps[1]!.output, "this tree has no frames")
    const row = handle.prepare("SELECT prediction, stop_reason FROM predictions").get() as {
      prediction: string
      stop_reason: string
    }
    assert.deepStrictEqual(row, { prediction: "A", stop_reason: "finished" })
  })

  it("has the tool model write event and scene cards when one is configured, and asks nothing again on a rerun", async () => {
    const dir = folder()
    const trees = join(dir, "trees")
    const input = write(join(dir, "lavila.json"), {
      ego2: perSecond(30, (i) => (i < 15 ? "#C C reads a book" : "#C C drinks water"))
    })
    const sim = await Sim.start({
      chat: {
        [toolModel]: (request) =>
          JSON.stringify(request.body).includes("top-level card of a scene")
            ? { content: JSON.stringify({ scene_summary: "C reads, then drinks water.", key_entities: ["book"] }) }
            : {
              content: JSON.stringify({ event_description: "C reads a book.", entities: ["book"], actions: ["reads"] })
            }
      }
    })
    cleanups.push(() => sim.close())
    const first = await runCli(["tree", "import", input, "--out", trees], simEnv(sim.url))
    assert.strictEqual(first.code, 0, first.stderr)
    const written = tree(trees, "ego2")
    assert.strictEqual(written.build.cards.written_by, "model")
    assert.strictEqual(written.nodes["ego2_L1_000"]!.card["scene_summary"], "C reads, then drinks water.")
    assert.strictEqual(written.nodes["ego2_L1_000_L2_000"]!.card["event_description"], "C reads a book.")
    const calls = sim.requests.length
    assert.strictEqual(calls, 3) // two events, one scene
    const again = await runCli(["tree", "import", input, "--out", trees], simEnv(sim.url))
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(sim.requests.length, calls)
  })

  it("with --videos extracts one frame per caption, so observe_frame has images", async () => {
    const dir = folder()
    const videos = join(dir, "videos")
    mkdirSync(videos)
    await makeSyntheticVideo({ dir: videos, name: "clip9", segmentSeconds: [3, 3] })
    const input = write(
      join(dir, "clip9_cap.json"),
      Object.fromEntries(perSecond(6, (i) => `second ${i}`).map((t, i) => [String(i), t]))
    )
    const trees = join(dir, "trees")
    const result = await runCli(["tree", "import", input, "--out", trees, "--videos", videos], {})
    assert.strictEqual(result.code, 0, result.stderr)
    const written = tree(trees, "clip9")
    assert.strictEqual(written.has_frames, undefined)
    assert.strictEqual(written.build.frames.extracted, 6)
    assert.strictEqual(readdirSync(join(trees, "clip9", "frames")).length, 6)
    const validated = await runCli(["tree", "validate", join(trees, "clip9")], {})
    assert.strictEqual(validated.code, 0, validated.stdout)
    assert.include(validated.stdout, "frames: 6 found, 0 missing")
  })

  it("counts the event cards the model answered unusably twice (degraded) in its summary, on a rerun too", async () => {
    const dir = folder()
    const trees = join(dir, "trees")
    const input = write(join(dir, "lavila.json"), { ego3: perSecond(30, () => "#C C reads a book") })
    const sim = await Sim.start({
      chat: {
        [toolModel]: (request) =>
          JSON.stringify(request.body).includes("top-level card of a scene")
            ? { content: JSON.stringify({ scene_summary: "C reads.", key_entities: ["book"] }) }
            : { content: "Sorry, I can only answer in prose: C reads a book." }
      }
    })
    cleanups.push(() => sim.close())
    const first = await runCli(["tree", "import", input, "--out", trees], simEnv(sim.url))
    assert.strictEqual(first.code, 0, first.stderr)
    // Two events asked twice each, one scene.
    assert.include(first.stdout, "(llovi; cards: model, 5 calls, 2 degraded; frames: none)")
    assert.include(first.stdout, "degraded cards: 2 events, 0 scenes — the model's reply could not be read twice")
    const written = tree(trees, "ego3")
    assert.deepStrictEqual(written.build.cards.degraded, { events: 2, scenes: 0 })
    assert.strictEqual(written.nodes["ego3_L1_000_L2_000"]!.card["degraded"], true)
    const again = await runCli(["tree", "import", input, "--out", trees], simEnv(sim.url))
    assert.strictEqual(again.code, 0, again.stderr)
    assert.include(again.stdout, "(llovi; cards: model, 0 calls, 3 reused, 2 degraded; frames: none)")
  })
})

describe("vtree tree import over an earlier import", () => {
  it("without --videos after an import with them: the frames it wrote go, a picture of someone else's stays; with --videos again they come back", async () => {
    const dir = folder()
    const videos = join(dir, "videos")
    mkdirSync(videos)
    await makeSyntheticVideo({ dir: videos, name: "clip8", segmentSeconds: [2, 2] })
    const input = write(
      join(dir, "clip8_cap.json"),
      Object.fromEntries(perSecond(4, (i) => `second ${i}`).map((t, i) => [String(i), t]))
    )
    const trees = join(dir, "trees")
    const treeDir = join(trees, "clip8")
    const withFrames = await runCli(["tree", "import", input, "--out", trees, "--videos", videos], {})
    assert.strictEqual(withFrames.code, 0, withFrames.stderr)
    assert.strictEqual(readdirSync(join(treeDir, "frames")).length, 4)
    writeFileSync(join(treeDir, "frames", "holiday.jpg"), "my photo")

    const without = await runCli(["tree", "import", input, "--out", trees], {})
    assert.strictEqual(without.code, 0, without.stderr)
    assert.strictEqual(tree(trees, "clip8").has_frames, false)
    assert.deepStrictEqual(readdirSync(join(treeDir, "frames")), ["holiday.jpg"])
    assert.notInclude(readdirSync(join(treeDir, ".vtree")), "import-frames")
    const validated = await runCli(["tree", "validate", treeDir], {})
    assert.strictEqual(validated.code, 0, validated.stdout)
    assert.include(validated.stdout, "frames: none")

    const again = await runCli(["tree", "import", input, "--out", trees, "--videos", videos], {})
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(tree(trees, "clip8").has_frames, undefined)
    assert.strictEqual(readdirSync(join(treeDir, "frames")).length, 5)
    const revalidated = await runCli(["tree", "validate", treeDir], {})
    assert.strictEqual(revalidated.code, 0, revalidated.stdout)
    assert.include(revalidated.stdout, "frames: 4 found, 0 missing")
  })

  it("leaves no frames/ folder behind when every file in it was vtree's", async () => {
    const dir = folder()
    const videos = join(dir, "videos")
    mkdirSync(videos)
    await makeSyntheticVideo({ dir: videos, name: "clip7", segmentSeconds: [2] })
    const input = write(join(dir, "clip7_cap.json"), { "0": "a", "1": "b" })
    const trees = join(dir, "trees")
    assert.strictEqual((await runCli(["tree", "import", input, "--out", trees, "--videos", videos], {})).code, 0)
    assert.strictEqual((await runCli(["tree", "import", input, "--out", trees], {})).code, 0)
    assert.sameMembers(readdirSync(join(trees, "clip7")), [".vtree", "tree.json"])
  })

  it("refuses a tree folder that is a symbolic link, and a link inside an earlier tree, writing nothing", async () => {
    const dir = folder()
    const input = write(join(dir, "l.json"), { linked: ["a"], plain: ["b"] })
    const trees = join(dir, "trees")
    const elsewhere = join(dir, "elsewhere")
    mkdirSync(elsewhere)
    mkdirSync(trees)
    symlinkSync(elsewhere, join(trees, "linked"))
    const first = await runCli(["tree", "import", input, "--out", trees], {})
    assert.strictEqual(first.code, 1, first.stdout)
    assert.match(first.stderr, /linked: a symbolic link inside --out \(to .*elsewhere\)/)
    assert.deepStrictEqual(readdirSync(elsewhere), [])
    assert.deepStrictEqual(readdirSync(trees), ["linked"])

    const other = write(join(dir, "m.json"), { plain: ["b"] })
    assert.strictEqual((await runCli(["tree", "import", other, "--out", trees], {})).code, 0)
    rmSync(join(trees, "plain", "tree.json"))
    symlinkSync(join(elsewhere, "tree.json"), join(trees, "plain", "tree.json"))
    const second = await runCli(["tree", "import", other, "--out", trees], {})
    assert.strictEqual(second.code, 1, second.stdout)
    assert.match(second.stderr, /tree\.json: a symbolic link inside --out/)
    assert.deepStrictEqual(readdirSync(elsewhere), [])
  })
})

describe("vtree tree import refuses, naming the file and the key", () => {
  const refuse = async (input: string, more: ReadonlyArray<string> = []) => {
    const result = await runCli(["tree", "import", input, "--out", join(input, "..", "trees-out"), ...more], {})
    assert.strictEqual(result.code, 1, result.stdout)
    const lines = result.stderr.trim().split("\n")
    assert.lengthOf(lines, 1, result.stderr)
    return lines[0]!
  }

  it("a file of no known layout, naming the layouts", async () => {
    const file = write(join(folder(), "questions.json"), [{ question: "why?" }])
    const line = await refuse(file)
    assert.match(line, /^vtree: .*questions\.json: not a caption layout vtree knows — the layouts are llovi .*jsonl/)
    assert.include(line, "--from")
  })

  it("an end before the start", async () => {
    const file = write(join(folder(), "c.jsonl"), JSON.stringify({ video_id: "v", start: 8, end: 2, text: "x" }))
    assert.match(await refuse(file), /c\.jsonl: line 1: end: ends at 2 s, before it starts at 8 s/)
  })

  it("a time that is not finite", async () => {
    const file = write(
      join(folder(), "captions.json"),
      "{\"0_9\": {\"caption\": \"x\"}, \"10_1e999\": {\"caption\": \"y\"}}"
    )
    assert.match(await refuse(file, ["--from", "dvd"]), /captions\.json: 10_1e999: expected a key/)
    const db = write(
      join(folder(), "database.json"),
      "{\"data\": [{\"time_start_secs\": 0, \"time_end_secs\": 1e999, \"caption\": \"x\"}]}"
    )
    assert.match(await refuse(db), /database\.json: data\[0\]\.time_end_secs: expected a finite number of seconds/)
  })

  it("a duplicate video id, in one file or in two", async () => {
    const file = write(join(folder(), "l.json"), "{\"v1\": [\"a\"], \"v1\": [\"b\"]}")
    assert.match(await refuse(file), /l\.json: v1: duplicate key "v1"/)
    const dir = folder()
    write(join(dir, "a.json"), { v2: ["a"] })
    write(join(dir, "b.json"), { v2: ["b"] })
    assert.match(await refuse(dir), /b\.json: v2: duplicate video id: "v2" is also in .*a\.json/)
  })

  it("empty caption text", async () => {
    const file = write(join(folder(), "l.json"), { v: ["ok", " "] })
    assert.match(await refuse(file), /l\.json: v\[1\]: empty caption text/)
  })

  it("a nesting bomb", async () => {
    const file = write(join(folder(), "bomb.json"), `{"v": ${"[".repeat(5000)}${"]".repeat(5000)}}`)
    assert.match(await refuse(file), /bomb\.json: .*nested more than 64 levels deep/)
  })

  it("a folder that is not vtree's, before anything is written", async () => {
    const dir = folder()
    const file = write(join(dir, "l.json"), { mine: ["a"] })
    write(join(dir, "trees-out", "mine", "notes.txt"), "my own")
    assert.match(await refuse(file), /mine: a folder vtree build did not make/)
    assert.deepStrictEqual(readdirSync(join(dir, "trees-out", "mine")), ["notes.txt"])
  })

  it("--cards model without a model configured", async () => {
    const file = write(join(folder(), "l.json"), { v: ["a"] })
    assert.match(await refuse(file, ["--cards", "model"]), /--cards model: no LLM configured/)
  })
})

describe("vtree tree import destroys nothing it did not write", () => {
  /** A tree `vtree build` wrote: its marker, a build record with models and no `made_by`, a frame. */
  const builtTree = (trees: string, id: string) => {
    write(join(trees, id, ".vtree", "tree-folder.json"), { made_by: "vtree build", videoID: id })
    write(join(trees, id, "tree.json"), {
      videoID: id,
      build: { vtree_version: "0.9.0", models: { vlm: "qwen-vl-max", llm: "qwen-max" } },
      nodes: {}
    })
    write(join(trees, id, "frames", "L1_000_L2_000_L3_000.jpg"), "a frame the vision model saw")
    return join(trees, id)
  }

  it("refuses to replace a tree vtree build made, naming the tree, its builder and --force; --force replaces it", async () => {
    const dir = folder()
    const trees = join(dir, "trees")
    const treeDir = builtTree(trees, "b1")
    const before = readFileSync(join(treeDir, "tree.json"), "utf8")
    const input = write(join(dir, "l.json"), { b1: ["a", "b"] })
    const refused = await runCli(["tree", "import", input, "--out", trees], {})
    assert.strictEqual(refused.code, 1, refused.stdout)
    const lines = refused.stderr.trim().split("\n")
    assert.lengthOf(lines, 1, refused.stderr)
    assert.match(lines[0]!, /^vtree: .*b1: .*vtree build.*--force/)
    assert.strictEqual(readFileSync(join(treeDir, "tree.json"), "utf8"), before)
    assert.deepStrictEqual(readdirSync(join(treeDir, "frames")), ["L1_000_L2_000_L3_000.jpg"])

    const forced = await runCli(["tree", "import", input, "--out", trees, "--force"], {})
    assert.strictEqual(forced.code, 0, forced.stderr)
    assert.strictEqual(tree(trees, "b1").build.source.format, "llovi")
    const again = await runCli(["tree", "import", input, "--out", trees], {})
    assert.strictEqual(again.code, 0, again.stderr)
  })

  it("--videos: a caption key that is not a plain name is refused, naming the key; nothing outside DIR is read", async () => {
    const dir = folder()
    const videos = join(dir, "videos")
    mkdirSync(videos)
    write(join(dir, "secret", "private.mp4"), "not for vtree")
    const input = write(join(dir, "l.json"), { "../secret/private": ["a"] })
    const trees = join(dir, "trees")
    const result = await runCli(["tree", "import", input, "--out", trees, "--videos", videos], {})
    assert.strictEqual(result.code, 1, result.stdout)
    const lines = result.stderr.trim().split("\n")
    assert.lengthOf(lines, 1, result.stderr)
    assert.match(lines[0]!, /^vtree: .*"\.\.\/secret\/private"/)
    assert.notInclude(lines[0]!, "decode")
  })

  it("a failed import removes the tree folder it made and leaves one that was there before", async () => {
    const dir = folder()
    const videos = join(dir, "videos")
    write(join(videos, "broken.mp4"), "not a video")
    write(join(videos, "kept.mp4"), "not a video either")
    const trees = join(dir, "trees")
    mkdirSync(join(trees, "kept"), { recursive: true })
    const first = await runCli(
      ["tree", "import", write(join(dir, "a.json"), { broken: ["a"] }), "--out", trees, "--videos", videos],
      {}
    )
    assert.strictEqual(first.code, 1, first.stdout)
    const second = await runCli(
      ["tree", "import", write(join(dir, "b.json"), { kept: ["a"] }), "--out", trees, "--videos", videos],
      {}
    )
    assert.strictEqual(second.code, 1, second.stdout)
    assert.deepStrictEqual(readdirSync(trees), ["kept"])
    assert.deepStrictEqual(readdirSync(join(trees, "kept")), [])
  })
})
