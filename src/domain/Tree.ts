import { Schema } from "effect"

/**
 * The two on-disk forms of `tree.json`: flat (every node keyed by id) and nested. Nodes are decoded in
 * two steps — the envelope first, then the card with the schema of the node's level — so an error points
 * at the exact field.
 */

// Builders emit `null` for fields the vision model left blank. The schemas only validate (no
// property transformations): Schema defaults cost ~5× more per node, which a 20,000-node tree feels;
// `withCardDefaults` fills the missing lists afterwards.
// Builders differ in small ways: some write a list where a sentence is expected, or a lone string where
// a list is expected. Both are accepted and normalized by `withCardDefaults` (a list of text is joined
// with "; ", a lone string becomes a one-item list) rather than failing a whole tree over it.
const Text = Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Array(Schema.String))))
const StringList = Schema.optional(Schema.NullOr(Schema.Union(Schema.Array(Schema.String), Schema.String)))
const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const SceneCard = Schema.Struct({
  scene_summary: Text,
  main_setting: Text,
  key_entities: StringList,
  main_actions: StringList,
  topic_keywords: StringList,
  temporal_flow: Text,
  visible_text: StringList
}, Extra)

export const EventCard = Schema.Struct({
  event_description: Text,
  entities: StringList,
  actions: StringList,
  action_subjects: StringList,
  spatial_relations: Text,
  state_changes: Text,
  visible_text: StringList
}, Extra)

export const FrameCard = Schema.Struct({
  frame_summary: Text,
  visible_entities: StringList,
  ongoing_actions: StringList,
  spatial_layout: Text,
  visual_attributes: Schema.optional(Schema.NullOr(Extra)),
  visible_text: StringList
}, Extra)

/** The list fields of each level's card, in card order. */
export const listFieldsByLevel = {
  1: ["key_entities", "main_actions", "topic_keywords", "visible_text"],
  2: ["entities", "actions", "action_subjects", "visible_text"],
  3: ["visible_entities", "ongoing_actions", "visible_text"]
} as const

/** Every field of each level's card, in card order: what the builder writes. */
export const cardFieldsByLevel = {
  1: [
    "scene_summary",
    "main_setting",
    "key_entities",
    "main_actions",
    "topic_keywords",
    "temporal_flow",
    "visible_text"
  ],
  2: [
    "event_description",
    "entities",
    "actions",
    "action_subjects",
    "spatial_relations",
    "state_changes",
    "visible_text"
  ],
  3: ["frame_summary", "visible_entities", "ongoing_actions", "spatial_layout", "visual_attributes", "visible_text"]
} as const

/** The text fields of each level's card. */
export const textFieldsByLevel = {
  1: ["scene_summary", "main_setting", "temporal_flow"],
  2: ["event_description", "spatial_relations", "state_changes"],
  3: ["frame_summary", "spatial_layout"]
} as const

/**
 * The card with null fields dropped, missing or null list fields set to [], a lone string in a list
 * field made a one-item list, and a list in a text field joined into one text.
 */
export const withCardDefaults = (
  level: 1 | 2 | 3,
  card: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key in card) if (card[key] !== null && card[key] !== undefined) out[key] = card[key]
  for (const field of listFieldsByLevel[level]) {
    const value = out[field]
    if (value === undefined) out[field] = []
    else if (typeof value === "string") out[field] = value.trim() === "" ? [] : [value]
  }
  for (const field of textFieldsByLevel[level]) {
    const value = out[field]
    if (Array.isArray(value)) out[field] = value.join("; ")
  }
  return out
}

export const cardSchemaByLevel = { 1: SceneCard, 2: EventCard, 3: FrameCard } as const

/** The field that summarizes a node of each level; also the first card line. */
export const summaryFieldByLevel = { 1: "scene_summary", 2: "event_description", 3: "frame_summary" } as const

/** The card field holding the entities of each level (the appendix adds visible_text everywhere). */
export const entityFieldByLevel = { 1: "key_entities", 2: "entities", 3: "visible_entities" } as const

// A declared guard rather than Schema.Literal(1, 2, 3): a literal union reports only its first member.
export const TreeLevel = Schema.declare(
  (value: unknown): value is 1 | 2 | 3 => value === 1 || value === 2 || value === 3,
  { message: (issue) => `expected 1, 2 or 3, found ${JSON.stringify(issue.actual) ?? "nothing"}` }
)

// JSON has no Infinity, but JSON.parse reads 1e999 as one.
const Seconds = Schema.declare(
  (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0,
  { message: (issue) => `expected a finite number of seconds ≥ 0, found ${JSON.stringify(issue.actual) ?? "nothing"}` }
)

export const TimeRange = Schema.Tuple(Seconds, Seconds).pipe(
  Schema.filter(([start, end]) => start <= end || `start ${start} is after end ${end}`)
)

/**
 * How far (seconds) a child's time range may reach outside its parent's: builders round times and
 * sample a frame at its event's very end, so a hair over is rounding, not a misplaced node.
 */
export const childTimeTolerance = 0.5

const Card = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => "expected an object of card fields"
})

const nodeFields = {
  level: TreeLevel,
  time_range: Schema.optional(TimeRange),
  timestamp: Schema.optional(Schema.NullOr(Seconds)),
  card: Schema.optional(Schema.NullOr(Card)),
  subtitle: Schema.optional(Schema.NullOr(Schema.String)),
  frame_path: Schema.optional(Schema.NullOr(Schema.String))
}

/** A node of the flat form, card not yet decoded. */
export const FlatNode = Schema.Struct({
  ...nodeFields,
  id: Schema.optional(Schema.String),
  children_ids: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
})
export type FlatNode = typeof FlatNode.Type

/**
 * One entry of a tree's entity registry: a person or thing tracked across the video (DVD's subject
 * registry, or the one `vtree build` writes), shown by view_node beside the nodes that mention it, list
 * it, or where it is first seen.
 */
export const TreeEntity = Schema.Struct({
  id: Schema.String,
  name: Schema.optionalWith(Schema.String, { exact: true }),
  /** Other names the video gives it ("the man in the apron", an on-screen name); a built registry's. */
  aliases: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  appearance: Schema.optionalWith(Schema.String, { exact: true }),
  identity: Schema.optionalWith(Schema.String, { exact: true }),
  /** Seconds from the start of the video. */
  first_seen: Schema.optionalWith(Seconds, { exact: true }),
  /** The scene and event ids it appears in, in video order (a built registry's). */
  nodes: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
export type TreeEntity = typeof TreeEntity.Type

export const FlatTree = Schema.Struct({
  videoID: Schema.String,
  duration_category: Schema.optionalWith(Schema.String, { exact: true, nullable: true }),
  duration_seconds: Schema.optionalWith(Seconds, { exact: true, nullable: true }),
  domain: Schema.optionalWith(Schema.String, { exact: true, nullable: true }),
  /** The tree's entity registry, when its source kept one. */
  entities: Schema.optionalWith(Schema.Array(TreeEntity), { exact: true }),
  /**
   * `false` for a tree made without frame images on purpose (imported from captions without the
   * videos): observe_frame says so, and `tree validate` does not count the frames as missing.
   */
  has_frames: Schema.optionalWith(Schema.Boolean, { exact: true }),
  nodes: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    message: () => "expected an object mapping node ids to nodes"
  })
})

const { nodes: _anyNodes, ...flatEnvelope } = FlatTree.fields

/**
 * The flat form as `vtree build` writes it: FlatTree's fields, the `build` record, and nodes that are
 * FlatNodes. The builder writes tree.json through `Schema.encode` of this, so it writes nothing the
 * reader would not take.
 */
export const BuiltTree = Schema.Struct({
  ...flatEnvelope,
  build: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  nodes: Schema.Record({ key: Schema.String, value: FlatNode })
})
export type BuiltTree = typeof BuiltTree.Type

/** A node of the nested form; `level` may be omitted (it is the depth), children decoded one by one. */
export const NestedNode = Schema.Struct({
  ...nodeFields,
  level: Schema.optional(TreeLevel),
  id: Schema.String,
  children: Schema.optional(Schema.NullOr(Schema.Array(Schema.Unknown)))
})
export type NestedNode = typeof NestedNode.Type

export const NestedTree = Schema.Struct({
  metadata: Schema.optionalWith(
    Schema.Struct({
      videoID: Schema.optionalWith(Schema.String, { exact: true }),
      video_id: Schema.optionalWith(Schema.String, { exact: true }),
      duration_category: Schema.optionalWith(Schema.String, { exact: true, nullable: true }),
      duration_seconds: Schema.optionalWith(Seconds, { exact: true, nullable: true }),
      domain: Schema.optionalWith(Schema.String, { exact: true, nullable: true })
    }),
    { default: () => ({}) }
  ),
  roots: Schema.Array(Schema.Unknown)
})

/** Why tree.json was refused. */
export const TreeDecodeErrorReason = Schema.Literal(
  "NotFound",
  "Unreadable",
  // not UTF-8 text
  "Encoding",
  // not JSON
  "Syntax",
  // JSON.parse would keep the last of two equal keys silently
  "DuplicateKey",
  "TooDeep",
  // JSON, but not a tree: a field, a level, an id or the nesting is wrong
  "Invalid",
  // a valid tree.json whose L3 frame images are not all in the folder (observe_frame would fail on them)
  "MissingFrames"
)
export type TreeDecodeErrorReason = typeof TreeDecodeErrorReason.Type

/** tree.json could not be read or does not describe a valid tree; `message` is the whole one-line report. */
export class TreeDecodeError extends Schema.TaggedError<TreeDecodeError>()("TreeDecodeError", {
  reason: TreeDecodeErrorReason,
  file: Schema.String,
  /** JSON path of the offending value, e.g. `nodes.X_L1_000.level`; empty for file-level problems. */
  path: Schema.String,
  message: Schema.String
}) {
  static at(
    file: string,
    path: string,
    problem: string,
    fix = "fix the file or re-run the builder",
    reason: TreeDecodeErrorReason = "Invalid"
  ): TreeDecodeError {
    const where = path === "" ? file : `${file}: ${path}`
    return new TreeDecodeError({ reason, file, path, message: `${where}: ${problem} — ${fix}` })
  }
}
