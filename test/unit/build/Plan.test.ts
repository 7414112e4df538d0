import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { estimateBuild, estimateRemaining } from "../../../src/programs/builder/Estimate.js"
import { durationCategory, eventId, frameFile, frameId, sceneId } from "../../../src/programs/builder/NodeIds.js"
import {
  assignFrames,
  cappedEventSeconds,
  checkParameters,
  defaultParameters,
  eventCapNote,
  eventLimits,
  frameGrid,
  planEventWindows
} from "../../../src/programs/builder/Plan.js"
import {
  cardWords,
  groupScenes,
  jaccardDistance,
  makeSceneScheduler
} from "../../../src/programs/builder/SceneGrouping.js"

const p = defaultParameters

describe("frame grid", () => {
  it("samples at 0, interval, 2·interval, … strictly before the end", () => {
    assert.deepStrictEqual(frameGrid(10, 2), [0, 2, 4, 6, 8])
    assert.deepStrictEqual(frameGrid(9.5, 2), [0, 2, 4, 6, 8])
    assert.deepStrictEqual(frameGrid(1, 2), [0])
    // No drift from adding 0.1 a thousand times.
    assert.strictEqual(frameGrid(100, 0.1).at(-1), 99.9)
  })
})

describe("event windows", () => {
  it("cut at the target when no shot change lies in range", () => {
    assert.deepStrictEqual(planEventWindows(60, [], p), [{ start: 0, end: 20 }, { start: 20, end: 40 }, {
      start: 40,
      end: 60
    }])
  })

  it("snap to the shot change in range nearest the target", () => {
    // 18.4 and 21 are in [15, 23]; 21 is nearer 20. 5 s is too early, 30 s too late.
    const windows = planEventWindows(45, [5, 18.4, 21, 30], p)
    assert.deepStrictEqual(windows[0], { start: 0, end: 21 })
    assert.strictEqual(windows.at(-1)!.end, 45)
  })

  it("at defaults, fit the frame cap: 12 grid points at most, so every frame is sent", () => {
    const limits = eventLimits(p)
    assert.isUndefined(cappedEventSeconds(p))
    assert.strictEqual(limits.max, 23)
    const grid = frameGrid(3600, 2)
    const events = assignFrames(planEventWindows(3600, [], p), grid, 12)
    assert.strictEqual(events.length, 180)
    assert.strictEqual(events.reduce((sum, e) => sum + e.frames.length, 0), 1800)
    assert.isTrue(events.every((e) => e.frames.length <= 12))
  })

  it("never under half nor over twice the target, all frames sent once, for any shots and length", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 2000, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 2000, noNaN: true }), { maxLength: 200 }),
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        (duration, shots, jitter) => {
          const cuts = shots.filter((t) => t < duration).sort((a, b) => a - b)
          const windows = planEventWindows(duration, cuts, p)
          assert.strictEqual(windows[0]!.start, 0)
          assert.closeTo(windows.at(-1)!.end, duration, 0.001)
          for (const [i, w] of windows.entries()) {
            if (i > 0) assert.strictEqual(w.start, windows[i - 1]!.end)
            if (windows.length > 1) assert.isAtLeast(w.end - w.start, p.eventSeconds / 2 - 1e-6)
            assert.isAtMost(w.end - w.start, 2 * p.eventSeconds)
          }
          const grid = frameGrid(duration, p.frameInterval).map((
            t,
            k
          ) => (k === 0 ? t : Math.min(t + jitter, duration - 0.001)))
          const events = assignFrames(windows, grid, p.framesPerCall)
          const sent = events.flatMap((e) => e.frames.map((f) => f.source))
          assert.deepStrictEqual(sent, grid.map((_, i) => i))
          for (const e of events) {
            assert.isAtLeast(e.frames.length, 1)
            for (const f of e.frames) assert.isTrue(f.time >= e.start && (f.time < e.end || e === events.at(-1)))
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("cap events at what one call sends when --event-seconds is longer: every frame is captioned, none left out", () => {
    // --event-seconds 25 over 600 s left 36 of 300 frames out when events kept their length.
    const awkward = { ...p, eventSeconds: 25 }
    assert.strictEqual(cappedEventSeconds(awkward), 23)
    assert.include(eventCapNote(awkward)!, "events are 23 s, not --event-seconds 25")
    assert.isUndefined(eventCapNote(p))
    const grid = frameGrid(600, 2)
    const events = assignFrames(planEventWindows(600, [], awkward), grid, 12)
    assert.deepStrictEqual(events.flatMap((e) => e.frames.map((f) => f.source)), grid.map((_, i) => i))
    assert.isTrue(events.every((e) => e.frames.length >= 1 && e.frames.length <= 12))
    assert.strictEqual(events.at(-1)!.end, 600)
    const long = { ...p, eventSeconds: 60 }
    const longEvents = assignFrames(planEventWindows(200, [], long), frameGrid(200, 2), 12)
    assert.strictEqual(longEvents.reduce((sum, e) => sum + e.frames.length, 0), 100)
    assert.isTrue(longEvents.every((e) => e.frames.length <= 12))
  })

  it("every frame in exactly one event of at most --frames-per-call frames, for any settings, shots and length", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 900, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 900, noNaN: true }), { maxLength: 60 }),
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        fc.integer({ min: 1, max: 64 }),
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        fc.double({ min: 1, max: 200, noNaN: true }),
        (duration, shots, jitter, framesPerCall, frameInterval, eventSeconds) => {
          const settings = {
            ...p,
            framesPerCall,
            frameInterval,
            eventSeconds: Math.max(eventSeconds, 2 * frameInterval)
          }
          const windows = planEventWindows(duration, shots.filter((t) => t < duration).sort((a, b) => a - b), settings)
          const grid = frameGrid(duration, frameInterval).map((t, k) =>
            k === 0 ? t : Math.min(t + jitter * frameInterval, duration - 0.001)
          )
          const events = assignFrames(windows, grid, framesPerCall)
          assert.deepStrictEqual(events.flatMap((e) => e.frames.map((f) => f.source)), grid.map((_, i) => i))
          assert.strictEqual(events[0]!.start, 0)
          assert.closeTo(events.at(-1)!.end, duration, 0.001)
          for (const [i, e] of events.entries()) {
            if (i > 0) assert.strictEqual(e.start, events[i - 1]!.end)
            assert.isAtLeast(e.frames.length, 1)
            assert.isAtMost(e.frames.length, framesPerCall)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("cut a window that holds more frames than a call sends into even parts, each from its first frame", () => {
    const times = Array.from({ length: 20 }, (_, i) => i * 1.5)
    const events = assignFrames([{ start: 0, end: 30 }], times, 12)
    assert.deepStrictEqual(events.map((e) => [e.start, e.end, e.frames.length]), [[0, 15, 10], [15, 30, 10]])
  })

  it("merge a window that holds no frame into the one before", () => {
    const events = assignFrames([{ start: 0, end: 10 }, { start: 10, end: 11 }, { start: 11, end: 20 }], [
      0,
      4,
      8,
      12,
      16
    ], 12)
    assert.deepStrictEqual(events.map((e) => [e.start, e.end, e.frames.length]), [[0, 11, 3], [11, 20, 2]])
  })
})

describe("scenes", () => {
  it("cut where adjacent event cards differ most, within the allowed lengths", () => {
    const events = Array.from({ length: 30 }, (_, i) => ({
      start: i * 20,
      end: (i + 1) * 20,
      // Topic changes after event 12 (260 s) and, more sharply, after event 16 (340 s).
      words: cardWords({
        event_description: i < 13
          ? "kitchen onion knife board"
          : i < 17
          ? "kitchen pan onion stove"
          : "garden dog ball grass"
      })
    }))
    assert.deepStrictEqual(groupScenes(events, p), [0, 17])
    // With cards all alike, the cut lands nearest the target.
    const same = events.map((e) => ({ ...e, words: cardWords({ event_description: "same" }) }))
    assert.deepStrictEqual(groupScenes(same, p), [0, 15])
  })

  it("the incremental scheduler settles exactly groupScenes' scenes, whatever order the cards arrive in", () => {
    const topics = ["kitchen onion knife", "pan stove eggs", "garden dog ball", "car road rain", "kitchen pan lid"]
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: 10, max: 40, noNaN: true }), fc.integer({ min: 0, max: topics.length - 1 })),
          { minLength: 1, maxLength: 120 }
        ),
        fc.integer(),
        (pieces, seed) => {
          let t = 0
          const events = pieces.map(([length, topic]) => {
            const start = t
            t = Math.round((t + length) * 1000) / 1000
            return { start, end: t, words: cardWords({ event_description: topics[topic]! }) }
          })
          const expected = groupScenes(events, p)
          const order = events.map((_, i) => i)
          let state = seed
          for (let i = order.length - 1; i > 0; i--) {
            state = (Math.imul(state, 1103515245) + 12345) | 0
            const j = Math.abs(state) % (i + 1)
            ;[order[i], order[j]] = [order[j]!, order[i]!]
          }
          const scheduler = makeSceneScheduler(events, p)
          const settled = order.flatMap((i) => scheduler.complete(i, events[i]!.words))
          assert.deepStrictEqual(settled.map(([first]) => first), expected)
          assert.strictEqual(settled.at(-1)![1], events.length)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("one scene for a short video", () => {
    assert.deepStrictEqual(
      groupScenes([{ start: 0, end: 20, words: new Set() }, { start: 20, end: 35, words: new Set(["x"]) }], p),
      [0]
    )
  })

  it("Jaccard distance of card words", () => {
    assert.strictEqual(jaccardDistance(new Set(["a", "b"]), new Set(["b", "c"])), 1 - 1 / 3)
    assert.strictEqual(jaccardDistance(new Set(), new Set()), 0)
    assert.deepStrictEqual([...cardWords({ a: "The Red car", b: ["red", "a car"], c: { d: "猫" } })], [
      "the",
      "red",
      "car",
      "猫"
    ])
  })
})

describe("short clips (EgoSchema 180 s, NExT-QA ~45 s, the 30 s sample)", () => {
  /** The whole plan at defaults: events with their frames, then scenes over them. */
  const planOf = (duration: number, shots: ReadonlyArray<number>) => {
    const events = assignFrames(
      planEventWindows(duration, shots, p),
      frameGrid(duration, p.frameInterval),
      p.framesPerCall
    )
    const starts = groupScenes(events.map((e) => ({ ...e, words: new Set<string>() })), p)
    return { events, starts }
  }

  it("one scene, at least one event, every event with a frame", () => {
    for (const duration of [0.4, 3, 30, 45, 47.3, 180]) {
      const { events, starts } = planOf(duration, [])
      assert.deepStrictEqual(starts, [0], `${duration} s`)
      assert.isAtLeast(events.length, 1)
      for (const event of events) assert.isAtLeast(event.frames.length, 1, `${duration} s: ${JSON.stringify(event)}`)
      assert.strictEqual(events[0]!.start, 0)
      assert.strictEqual(events.at(-1)!.end, duration)
    }
    assert.deepStrictEqual(planOf(45, []).events.map((e) => [e.start, e.end]), [[0, 20], [20, 35], [35, 45]])
    assert.strictEqual(planOf(180, []).events.length, 9)
  })

  it("no empty level for any clip up to 180 s, whatever its shot changes", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 180, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        (duration, fractions) => {
          const { events, starts } = planOf(
            duration,
            fractions.map((f) => Math.round(f * duration * 1000) / 1000).sort((a, b) => a - b)
          )
          return starts.length === 1 && events.length >= 1 && events.every((e) => e.frames.length >= 1) &&
            events.every((e, i) => i === 0 || e.start === events[i - 1]!.end)
        }
      )
    )
  })
})

describe("ids, names, bands, cost", () => {
  it("nested ids and frame files per DESIGN §5.1", () => {
    assert.strictEqual(sceneId("vid", 0), "vid_L1_000")
    assert.strictEqual(eventId("vid", 0, 1), "vid_L1_000_L2_001")
    assert.strictEqual(frameId("vid", 0, 1, 2), "vid_L1_000_L2_001_L3_002")
    assert.strictEqual(frameFile("vid", "vid_L1_000_L2_001_L3_002"), "frames/L1_000_L2_001_L3_002.jpg")
  })

  it("Video-MME duration bands, lengths between bands to the nearer", () => {
    assert.deepStrictEqual([60, 179, 180, 900, 1349, 1350, 3600, 7200].map(durationCategory), [
      "short",
      "short",
      "medium",
      "medium",
      "medium",
      "long",
      "long",
      "long"
    ])
  })

  it("rejects parameters that contradict each other", () => {
    assert.isUndefined(checkParameters(p))
    assert.include(checkParameters({ ...p, frameInterval: 15 })!, "--frame-interval")
    assert.include(checkParameters({ ...p, sceneSeconds: 10 })!, "--scene-seconds")
    assert.include(checkParameters({ ...p, framesPerCall: 0 })!, "--frames-per-call")
  })

  it("at defaults an hour costs at most 200 calls, every frame seen once", () => {
    const estimate = estimateBuild({
      durationSeconds: 3600,
      width: 1280,
      height: 720,
      subtitleChars: 40_000,
      promptChars: { event: 2000, scene: 1500 },
      parameters: p
    })
    assert.deepStrictEqual([estimate.frames, estimate.framesSent, estimate.vlmCalls, estimate.llmCalls], [
      1800,
      1800,
      180,
      12
    ])
    assert.isAtMost(estimate.vlmCalls + estimate.llmCalls, 200)
    assert.isAbove(estimate.promptTokens, estimate.completionTokens)
  })
})

describe("what a build still has to ask (dry run over checkpoints)", () => {
  it("counts only calls without a checkpoint, and estimates a scene with an unknown event from reply sizes", () => {
    const remaining = estimateRemaining({
      durationSeconds: 60,
      frames: 30,
      perImage: 100,
      promptChars: { event: 400, scene: 200 },
      events: [
        { images: 10, textChars: 40, done: true },
        { images: 10, textChars: 80, done: false },
        { images: 10, textChars: 40, done: true }
      ],
      scenes: [{ events: [0, 1], textChars: undefined, done: false }, { events: [2], textChars: 400, done: true }]
    })
    assert.deepStrictEqual(
      [remaining.vlmCalls, remaining.llmCalls, remaining.reused, remaining.images, remaining.framesSent],
      [1, 1, 3, 10, 30]
    )
    // The asked event: its prompt and text at 4 characters a token, ten images; its reply a card per frame.
    assert.deepStrictEqual(remaining.tokens.vlm, { prompt: 100 + 20 + 1000, completion: 200 + 900 })
    // The scene reads its two events' cards, unknown yet: their typical reply sizes.
    assert.deepStrictEqual(remaining.tokens.llm, { prompt: 50 + 2 * 1100, completion: 300 })
    assert.strictEqual(remaining.promptTokens, 1120 + 2250)
    const done = estimateRemaining({
      durationSeconds: 60,
      frames: 30,
      perImage: 100,
      promptChars: { event: 400, scene: 200 },
      events: [{ images: 10, textChars: 40, done: true }],
      scenes: [{ events: [0], textChars: 100, done: true }]
    })
    assert.deepStrictEqual([done.vlmCalls, done.llmCalls, done.reused, done.promptTokens, done.completionTokens], [
      0,
      0,
      2,
      0,
      0
    ])
  })
})
