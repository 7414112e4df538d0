/**
 * Video-MME-v2's grouped non-linear scoring, as its own evaluation/test_video_mme_v2.py defines it
 * (MME-Benchmarks/Video-MME-v2 at 013b6c9, `cal_relevance`, `cal_logic`, `get_final_rating`). Pure.
 *
 * Each video's four questions are one group. A relevance group (capability consistency) scores by how many
 * are right: 0, 1/16, 4/16, 9/16, 1. A logic group (reasoning coherence) scores by its chain of leading right
 * answers under its structure's map; the group's level, type, structure and categories are its last
 * question's. A mark is 1 (right), 0 (wrong) or −1 (the script's "failed to extract": no letter read).
 */

export type Mark = 1 | 0 | -1

export const groupStructures = ["[1, 2, 3, 4]", "[1, [2, 3], 4]", "[[1, 2], 3, 4]"] as const
export type GroupStructure = typeof groupStructures[number]

/** A structure as written in the file (spacing aside), or null when it is none of the three. */
export const groupStructureOf = (text: string): GroupStructure | null => {
  const bare = text.replace(/\s+/g, "")
  return groupStructures.find((s) => s.replace(/\s+/g, "") === bare) ?? null
}

/** `score_map` of cal_relevance, and of cal_logic for [1, 2, 3, 4]: k right of 4 earns k²/16. */
const squares: Readonly<Record<number, number>> = { 0: 0, 1: 1 / 16, 2: 4 / 16, 3: 9 / 16, 4: 1 }

/** cal_logic's `score_map` per structure: the value of a chain of n links (0–4). */
const logicMaps: Readonly<Record<GroupStructure, Readonly<Record<number, number>>>> = {
  "[1, 2, 3, 4]": squares,
  // Questions 2 and 3 hang off 1 side by side: 1/12, 4/12, 7/12.
  "[1, [2, 3], 4]": { 0: 0, 1: 1 / 12, 2: 4 / 12, 3: 7 / 12, 4: 1 },
  // Questions 1 and 2 both open the chain: 1/10, 2/10, 5/10.
  "[[1, 2], 3, 4]": { 0: 0, 1: 1 / 10, 2: 2 / 10, 3: 5 / 10, 4: 1 }
}

/**
 * cal_relevance: the map at the SUM of the marks, so a −1 takes a right answer away (3 right and one
 * unread score as 2 right); a sum below 0 finds no entry and scores 0. The linear score is sum × 25 %.
 */
export const relevanceScore = (marks: ReadonlyArray<Mark>): { readonly score: number; readonly linear: number } => {
  const sum = marks.reduce<number>((a, b) => a + b, 0)
  return { score: squares[sum] ?? 0, linear: sum / 4 }
}

/**
 * cal_logic: the chain runs while a mark is truthy, and Python's `if val:` holds for −1, so an unread answer
 * counts as a right link (as it does in the two structure checks). [1, [2, 3], 4]: a chain stopped at 1 gains
 * a link when question 3 is right. [[1, 2], 3, 4]: an empty chain (question 1 wrong)
 * gains a link when question 2 is right.
 */
export const logicScore = (marks: ReadonlyArray<Mark>, structure: GroupStructure): number => {
  let last = -1
  for (const [i, mark] of marks.entries()) {
    if (mark === 0) break
    last = i
  }
  if (structure === "[1, [2, 3], 4]" && last === 0 && (marks[2] ?? 0) !== 0) last += 1
  if (structure === "[[1, 2], 3, 4]" && last === -1 && (marks[1] ?? 0) !== 0) last += 1
  return logicMaps[structure][last + 1] ?? 0
}

export type GroupType = "relevance" | "logic"

export const groupScore = (marks: ReadonlyArray<Mark>, type: GroupType, structure: GroupStructure | null): number =>
  type === "relevance" ? relevanceScore(marks).score : structure === null ? 0 : logicScore(marks, structure)

/** The strict mark of the same answer: an unread answer is wrong, nothing more. */
export const strictMark = (mark: Mark): Mark => (mark === 1 ? 1 : 0)

export const meanOf = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length

/** Scores per label, labels in first-seen order: the mean of each label's group scores, and their count. */
export const meansBy = <G>(
  groups: ReadonlyArray<G>,
  labelOf: (group: G) => string | null,
  scoreOf: (group: G) => number
): ReadonlyArray<{ readonly key: string; readonly score: number | null; readonly groups: number }> => {
  const by = new Map<string, Array<number>>()
  for (const g of groups) {
    const label = labelOf(g)
    if (label === null) continue
    const list = by.get(label) ?? []
    list.push(scoreOf(g))
    by.set(label, list)
  }
  return [...by.entries()].map(([key, scores]) => ({ key, score: meanOf(scores), groups: scores.length }))
}
