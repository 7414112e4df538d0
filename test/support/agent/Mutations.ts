import fc from "fast-check"

/** A cut, an insertion of one of `inserts`, or a deletion: what a flaky model or a token limit does to a reply. */
export type Mutation =
  | { readonly kind: "cut"; readonly at: number }
  | { readonly kind: "insert"; readonly at: number; readonly text: string }
  | { readonly kind: "delete"; readonly at: number; readonly length: number }

export const mutations = (inserts: ReadonlyArray<string>, maxDelete: number): fc.Arbitrary<ReadonlyArray<Mutation>> =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.constantFrom(...inserts) }),
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: maxDelete }) })
    ),
    { minLength: 1, maxLength: 4 }
  )

export const mutate = (text: string, changes: ReadonlyArray<Mutation>): string =>
  changes.reduce((raw, m) => {
    const at = m.at % (raw.length + 1)
    return m.kind === "cut"
      ? raw.slice(0, at)
      : m.kind === "insert"
      ? raw.slice(0, at) + m.text + raw.slice(at)
      : raw.slice(0, at) + raw.slice(at + m.length)
  }, text)
