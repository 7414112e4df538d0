import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { checkParameters, defaultParameters, frameGrid } from "../../../src/programs/builder/Plan.js"
import {
  type LookedFrame,
  planVideoEvents,
  sceneCuts,
  sceneMinSeconds,
  shotChangeScores
} from "../../../src/programs/builder/SceneCuts.js"
import { groupScenes, makeSceneScheduler } from "../../../src/programs/builder/SceneGrouping.js"

const p = { ...defaultParameters, frameInterval: 1, eventSeconds: 4, sceneSeconds: 40 }

/** A look of one colour (4×4 pixels, base64). */
const look = (rgb: readonly [number, number, number]) =>
  Buffer.from(Array.from({ length: 16 }, () => rgb).flat()).toString("base64")

/** Frames every second over `segments` of [seconds, colour]. */
const framesOf = (segments: ReadonlyArray<readonly [number, readonly [number, number, number]]>) => {
  const frames: Array<LookedFrame> = []
  let start = 0
  for (const [seconds, rgb] of segments) {
    for (let t = start; t < start + seconds; t++) frames.push({ time: t, look: look(rgb) })
    start += seconds
  }
  return frames
}

const red = [200, 30, 30] as const
const blue = [30, 30, 200] as const
const face = [180, 140, 120] as const
const otherFace = [170, 135, 125] as const

describe("scene cuts at picture changes", () => {
  it("scores a change of place high and a cut between two alike shots low", () => {
    const dialogue = Array.from({ length: 8 }, (_, i) => [3, i % 2 === 0 ? face : otherFace] as const)
    const frames = framesOf([[10, red], ...dialogue, [11, blue]])
    const scores = shotChangeScores(frames, [10, 19, 22, 34], 4)
    const [intoFaces, dialogue1, dialogue2, intoBlue] = scores.map((c) => c.score)
    assert.isAbove(intoFaces!, 0.1)
    assert.isAbove(intoBlue!, 0.1)
    assert.isBelow(dialogue1!, 0.05)
    assert.isBelow(dialogue2!, 0.05)
  })

  it("gives a change without looks on one side (a frame cache from before looks) no score", () => {
    const frames = framesOf([[10, red], [10, blue]]).map((frame) => frame.time < 10 ? { time: frame.time } : frame)
    assert.deepStrictEqual(shotChangeScores(frames, [10], 4), [{ at: 10, score: 0 }])
  })

  it("cuts at the strongest changes first, never closer than the shortest scene", () => {
    const limits = { min: 10, max: 200, threshold: 0.1 }
    // 30 and 36 are both strong; 36 is stronger, so 30 is too close to it to be a cut.
    const cuts = sceneCuts(120, [{ at: 30, score: 0.3 }, { at: 36, score: 0.5 }, { at: 70, score: 0.2 }], limits)
    assert.deepStrictEqual(cuts, [36, 70])
    // Weak changes and changes within the shortest scene of either end are not cuts.
    assert.deepStrictEqual(
      sceneCuts(120, [{ at: 5, score: 0.9 }, { at: 60, score: 0.05 }, { at: 115, score: 0.9 }], limits),
      []
    )
  })

  it("splits a long uniform stretch into the fewest even scenes no longer than the maximum", () => {
    assert.deepStrictEqual(sceneCuts(90, [], { min: 4, max: 40, threshold: 0.1 }), [30, 60])
    assert.deepStrictEqual(sceneCuts(70, [], { min: 4, max: 40, threshold: 0.1 }), [35])
    // A weak shot change near an even split is taken instead of the bare middle, but never one that
    // would leave more than the maximum after it.
    assert.deepStrictEqual(sceneCuts(70, [{ at: 37, score: 0.01 }], { min: 4, max: 40, threshold: 0.1 }), [37])
    assert.deepStrictEqual(sceneCuts(80, [{ at: 37, score: 0.01 }], { min: 4, max: 40, threshold: 0.1 }), [40])
  })

  it("keeps every scene between half an event and the maximum (property)", () => {
    fc.assert(fc.property(
      fc.double({ min: 5, max: 2000, noNaN: true }),
      fc.array(
        fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), score: fc.double({ min: 0, max: 1, noNaN: true }) })
      ),
      (duration, raw) => {
        const candidates = raw.map((c) => ({ at: Math.round(c.at * duration * 1000) / 1000, score: c.score }))
        const min = sceneMinSeconds(defaultParameters)
        const cuts = sceneCuts(duration, candidates, { min, max: 300, threshold: 0.1 })
        const edges = [0, ...cuts, duration]
        for (let i = 1; i < edges.length; i++) {
          const length = edges[i]! - edges[i - 1]!
          assert.isAtMost(length, 300 + 1e-3)
          if (duration > defaultParameters.eventSeconds / 2) {
            assert.isAtLeast(length, defaultParameters.eventSeconds / 2 - 1e-3)
          }
        }
      }
    ))
  })

  it("plans events inside each scene: none crosses a cut, every frame is sent once", () => {
    const frames = framesOf([[7, red], [12, face], [6, blue], [90, red]])
    const events = planVideoEvents({ durationSeconds: 115, frames, shotChanges: [7, 19, 25] }, p)
    const sceneStarts = [0, 7, 19, 25, 55, 85]
    events.forEach((event) => {
      const scene = event.scene!
      assert.isAtLeast(event.start, sceneStarts[scene]!)
      assert.isAtMost(event.end, sceneStarts[scene + 1] ?? 115)
      assert.isTrue(event.frames.every((frame) => frames[frame.source]!.time === frame.time))
    })
    assert.deepStrictEqual(events.map((event) => event.index), events.map((_, i) => i))
    assert.deepStrictEqual(
      events.flatMap((event) => event.frames.map((frame) => frame.source)),
      frames.map((_, i) => i)
    )
    assert.deepStrictEqual(
      groupScenes(events.map((event) => ({ ...event, words: new Set<string>() })), p).map((i) => events[i]!.start),
      sceneStarts
    )
  })

  it("joins a scene holding no frame (a damaged stretch) to the one before it", () => {
    // No frame decoded from 18 s on: the scene past the cut at 20 s would have nothing to show.
    const frames = framesOf([[20, red], [20, blue]]).filter((frame) => frame.time < 18)
    const events = planVideoEvents({ durationSeconds: 40, frames, shotChanges: [20] }, { ...p, sceneSeconds: 20 })
    assert.isTrue(events.every((event) => event.frames.length > 0))
    assert.deepStrictEqual([...new Set(events.map((event) => event.scene))], [0])
    assert.strictEqual(events.at(-1)!.end, 40)
  })

  it("fixed mode plans as before: events over the whole video, scenes left to the cards", () => {
    const events = planVideoEvents({
      durationSeconds: 100,
      frames: frameGrid(100, 2).map((time) => ({ time })),
      shotChanges: []
    }, {
      ...defaultParameters,
      scenes: "fixed"
    })
    assert.isTrue(events.every((event) => event.scene === undefined))
  })

  it("settles each marked scene, in order, once its events are done", () => {
    const events = [0, 1, 2, 3].map((i) => ({ start: i * 10, end: i * 10 + 10, scene: i < 2 ? 0 : 1 }))
    const scheduler = makeSceneScheduler(events, p)
    const words = new Set(["x"])
    assert.deepStrictEqual(scheduler.complete(3, words), [])
    assert.deepStrictEqual(scheduler.complete(2, words), [])
    assert.deepStrictEqual(scheduler.complete(0, words), [])
    assert.deepStrictEqual(scheduler.complete(1, words), [[0, 2], [2, 4]])
  })

  it("refuses a scene mode it does not know", () => {
    assert.include(
      checkParameters({ ...defaultParameters, scenes: "shots" as "cuts" }),
      "--scenes shots: expected cuts or fixed"
    )
  })
})
