import { listFieldsByLevel, textFieldsByLevel } from "../../domain/Tree.js"
import type { FlatNode, NestedNode } from "../../domain/Tree.js"

/**
 * Plain-JavaScript acceptance tests for the common shape of a node, run before the Schema decode.
 * Effect Schema costs tens of microseconds per node, which is most of a 20,000-node load; these
 * accept a strict subset of what the schemas in domain/Tree.ts accept, so anything unusual — and
 * every error — still goes through Schema, which stays the contract and writes the messages.
 * test/unit/tree/FastCheck.test.ts checks "accepted here ⇒ accepted by Schema" on random nodes.
 */

const isAbsent = (value: unknown) => value === undefined || value === null
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype
const isStringList = (value: unknown) => {
  if (!Array.isArray(value)) return false
  for (const item of value) if (typeof item !== "string") return false
  return true
}
const optionalString = (value: unknown) => isAbsent(value) || typeof value === "string"
const optionalStringList = (value: unknown) => isAbsent(value) || isStringList(value)

export const isPlainCard = (level: 1 | 2 | 3, card: unknown): card is Record<string, unknown> => {
  if (!isPlainObject(card)) return false
  for (const field of textFieldsByLevel[level]) if (!optionalString(card[field])) return false
  for (const field of listFieldsByLevel[level]) if (!optionalStringList(card[field])) return false
  if (level === 3 && !(isAbsent(card["visual_attributes"]) || isPlainObject(card["visual_attributes"]))) return false
  return true
}

const isTimeRange = (value: unknown) =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number" &&
  value[0] <= value[1]

const isLevel = (value: unknown) => value === 1 || value === 2 || value === 3

const hasPlainEnvelope = (value: Record<string, unknown>) =>
  (value["time_range"] === undefined || isTimeRange(value["time_range"])) &&
  (isAbsent(value["timestamp"]) || typeof value["timestamp"] === "number") &&
  (isAbsent(value["card"]) || isPlainObject(value["card"])) &&
  optionalString(value["subtitle"]) &&
  optionalString(value["frame_path"])

export const isPlainFlatNode = (value: unknown): value is FlatNode =>
  isPlainObject(value) && isLevel(value["level"]) && hasPlainEnvelope(value) &&
  (value["id"] === undefined || typeof value["id"] === "string") &&
  optionalStringList(value["children_ids"])

export const isPlainNestedNode = (value: unknown): value is NestedNode =>
  isPlainObject(value) && (value["level"] === undefined || isLevel(value["level"])) && hasPlainEnvelope(value) &&
  typeof value["id"] === "string" && (isAbsent(value["children"]) || Array.isArray(value["children"]))
