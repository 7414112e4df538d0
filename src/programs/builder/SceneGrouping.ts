/**
 * Scenes from events, as plain functions: consecutive events grouped into scenes of about
 * --scene-seconds, cut between the two neighbours whose cards differ most, decided all at once
 * (groupScenes) or as the cards arrive (makeSceneScheduler), with the same result. Events already marked
 * with their scene (`--scenes cuts`, SceneCuts.ts) keep it: a scene is settled when its events are done.
 */
import { type BuildParameters, sceneLimits, segment, segmentStep, type Window } from "./Plan.js"

/** The words of a card, for comparing neighbours. */
export const cardWords = (card: Readonly<Record<string, unknown>>): ReadonlySet<string> => {
  const words = new Set<string>()
  const visit = (value: unknown) => {
    if (typeof value === "string") {
      for (const word of value.toLowerCase().match(/[\p{L}\p{N}]{3,}|\p{Script=Han}/gu) ?? []) words.add(word)
    } else if (Array.isArray(value)) {
      value.forEach(visit)
    } else if (typeof value === "object" && value !== null) {
      Object.values(value).forEach(visit)
    }
  }
  visit(card)
  return words
}

/** 1 − |A∩B| / |A∪B|; two empty sets are alike (0). */
export const jaccardDistance = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const word of a) if (b.has(word)) shared++
  return 1 - shared / (a.size + b.size - shared)
}

/**
 * Consecutive events grouped into scenes of about `sceneSeconds`, each cut between the two adjacent
 * events whose cards differ most (Jaccard distance of their words) within the allowed lengths.
 * Returns the index of each scene's first event.
 */
export const groupScenes = (
  events: ReadonlyArray<Window & { readonly words: ReadonlySet<string>; readonly scene?: number | undefined }>,
  p: BuildParameters
): ReadonlyArray<number> => {
  if (events.length === 0) return []
  if (events[0]!.scene !== undefined) return sceneStarts(events)
  const candidates = events.slice(1).map((event, i) => ({
    at: event.start,
    // Rounded so floating noise does not decide between equally different neighbours.
    score: Math.round(jaccardDistance(events[i]!.words, event.words) * 1e6) / 1e6
  }))
  const cuts = segment(events[0]!.start, events[events.length - 1]!.end, sceneLimits(p), candidates, {
    mustUseCandidate: true
  })
  const starts = [0]
  for (const cut of cuts) {
    const index = events.findIndex((event) => Math.abs(event.start - cut) < 1e-6)
    if (index > starts[starts.length - 1]!) starts.push(index)
  }
  return starts
}

/** The index of each scene's first event, for events marked with their scene. */
const sceneStarts = (events: ReadonlyArray<{ readonly scene?: number | undefined }>): ReadonlyArray<number> =>
  events.flatMap((event, i) => i === 0 || event.scene !== events[i - 1]!.scene ? [i] : [])

/**
 * groupScenes, decided as event cards arrive in any order: each scene is settled as soon as the cards
 * that can move its cut are known and its own events are done, so its call can start while later
 * events are still being captioned. The scenes are exactly groupScenes' (a property test checks it).
 */
export const makeSceneScheduler = (
  events: ReadonlyArray<Window & { readonly scene?: number | undefined }>,
  p: BuildParameters
) => {
  const words: Array<ReadonlySet<string> | undefined> = events.map(() => undefined)
  const end = events[events.length - 1]?.end ?? 0
  const limits = sceneLimits(p)
  const marked = events[0]?.scene !== undefined ? sceneStarts(events) : undefined
  let first = 0
  return {
    /** Records event `index`'s card words; returns the scenes newly settled, as [first, stop) event ranges. */
    complete: (index: number, cardWords: ReadonlySet<string>): ReadonlyArray<readonly [number, number]> => {
      words[index] = cardWords
      const settled: Array<readonly [number, number]> = []
      if (marked !== undefined) {
        // In order, so each scene's call gets the index groupScenes gives it.
        for (let s = marked.indexOf(first); s >= 0 && s < marked.length; s++) {
          const stop = marked[s + 1] ?? events.length
          if (words.slice(first, stop).some((w) => w === undefined)) break
          settled.push([first, stop])
          first = stop
        }
        return settled
      }
      while (first < events.length) {
        const candidates = events.slice(first + 1).map((event, k) => {
          const before = words[first + k]
          const after = words[first + k + 1]
          return {
            at: event.start,
            score: before === undefined || after === undefined
              ? undefined
              : Math.round(jaccardDistance(before, after) * 1e6) / 1e6
          }
        })
        const step = segmentStep(events[first]!.start, end, limits, candidates, { mustUseCandidate: true })
        if (step._tag === "Wait") break
        const stop = step._tag === "Done"
          ? events.length
          : events.findIndex((event) => Math.abs(event.start - step.at) < 1e-6)
        if (stop <= first || words.slice(first, stop).some((w) => w === undefined)) break
        settled.push([first, stop])
        first = stop
      }
      return settled
    }
  }
}
