// Video-MME-v2's test.parquet as released, written with a Parquet writer: three groups of four, one of each
// group structure (001 relevance, 002 logic [1, [2, 3], 4], 003 logic [[1, 2], 3, 4]).
import { parquetWriteBuffer } from "hyparquet-writer"

export interface VideoMmeV2Row {
  readonly video_id: string
  readonly question_id: string
  readonly question: string
  readonly options: string
  readonly answer: string
  readonly level: number
  readonly group_type: string
  readonly group_structure: string
  readonly second_head: string
  readonly third_head: string
}

const eight = (...texts: ReadonlyArray<string>) =>
  texts.map((t, i) => `${String.fromCharCode(65 + i)}. ${t}`).join("\n")

const group = (
  video: string,
  level: number,
  type: "relevance" | "logic",
  structure: string,
  heads: readonly [string, string],
  keys: string
): ReadonlyArray<VideoMmeV2Row> =>
  [...keys].map((answer, i) => ({
    video_id: video,
    question_id: `${video}-${i + 1}`,
    question: `Video ${video} question ${i + 1}?`,
    options: eight("Red.", "Blue.", "Green.", "Two\npeople.", "Five.", "Seven.", "Nine.", "Cannot be determined."),
    answer,
    level,
    group_type: type,
    group_structure: structure,
    // The group's categories are its last question's: the first three carry another head.
    second_head: i === 3 ? heads[0] : "Other",
    third_head: i === 3 ? heads[1] : "Other detail"
  }))

export const videoMmeV2Rows: ReadonlyArray<VideoMmeV2Row> = [
  ...group("001", 1, "relevance", "[1, 2, 3, 4]", ["Frames & Audio", "Counting"], "ABCD"),
  ...group("002", 2, "logic", "[1, [2, 3], 4]", ["Temporal", "Order"], "EFGH"),
  ...group("003", 3, "logic", "[[1, 2], 3, 4]", ["Reasoning", "Causal"], "BADC")
]

/** The rows as a Parquet file (level an INT32 column, the rest strings), compressed as the writer chooses. */
export const videoMmeV2Parquet = (rows: ReadonlyArray<VideoMmeV2Row> = videoMmeV2Rows): Uint8Array => {
  const column = (name: keyof VideoMmeV2Row) => rows.map((r) => r[name])
  const strings = [
    "video_id",
    "question_id",
    "question",
    "options",
    "answer",
    "group_type",
    "group_structure",
    "second_head",
    "third_head"
  ] as const
  return new Uint8Array(parquetWriteBuffer({
    columnData: [
      ...strings.map((name) => ({ name, data: column(name) as Array<string>, type: "STRING" as const })),
      { name: "level", data: column("level") as Array<number>, type: "INT32" as const }
    ]
  }))
}

/** `n` groups of four in the released shape (for timing a load of the whole 3,200-question set). */
export const manyVideoMmeV2Rows = (groups: number): ReadonlyArray<VideoMmeV2Row> =>
  Array.from({ length: groups }, (_, g) => {
    const video = String(g + 1).padStart(3, "0")
    const kind = g % 3
    return group(
      video,
      (g % 3) + 1,
      kind === 0 ? "relevance" : "logic",
      ["[1, 2, 3, 4]", "[1, [2, 3], 4]", "[[1, 2], 3, 4]"][kind]!,
      ["Frames & Audio", "Counting"],
      "ABCD"
    )
  }).flat()
