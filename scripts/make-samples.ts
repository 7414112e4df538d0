/**
 * Writes samples/: a small cooking-show video tree (flat tree.json, DESIGN §5.1) with real JPEG
 * frames, and its questions in both input forms (DESIGN §5.2). Deterministic: running it twice
 * produces byte-identical files, so the committed samples can be regenerated and diffed.
 *
 *   npx tsx scripts/make-samples.ts [outDir=samples]
 */
import jpeg from "jpeg-js"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { videoMmeRows } from "./video-mme-rows.js"

const videoId = "vtSmpl0001a"
const outDir = path.resolve(process.argv[2] ?? "samples")

// ---------------------------------------------------------------------------------------------
// A tiny raster: 160×90 RGB, rectangles, discs and a 5×7 block font for on-screen text.

type Rgb = readonly [number, number, number]
const W = 160
const H = 90

class Canvas {
  readonly data = new Uint8Array(W * H * 4)
  constructor(bg: Rgb) {
    this.rect(0, 0, W, H, bg)
  }
  private set(x: number, y: number, [r, g, b]: Rgb) {
    if (x < 0 || y < 0 || x >= W || y >= H) return
    const i = (y * W + x) * 4
    this.data[i] = r
    this.data[i + 1] = g
    this.data[i + 2] = b
    this.data[i + 3] = 255
  }
  rect(x: number, y: number, w: number, h: number, color: Rgb): this {
    for (let yy = Math.round(y); yy < Math.round(y + h); yy++) {
      for (let xx = Math.round(x); xx < Math.round(x + w); xx++) this.set(xx, yy, color)
    }
    return this
  }
  disc(cx: number, cy: number, r: number, color: Rgb): this {
    for (let yy = Math.floor(cy - r); yy <= Math.ceil(cy + r); yy++) {
      for (let xx = Math.floor(cx - r); xx <= Math.ceil(cx + r); xx++) {
        if ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r) this.set(xx, yy, color)
      }
    }
    return this
  }
  ring(cx: number, cy: number, r: number, width: number, color: Rgb): this {
    for (let yy = Math.floor(cy - r); yy <= Math.ceil(cy + r); yy++) {
      for (let xx = Math.floor(cx - r); xx <= Math.ceil(cx + r); xx++) {
        const d = Math.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
        if (d <= r && d >= r - width) this.set(xx, yy, color)
      }
    }
    return this
  }
  /** Block letters; `x` = "center" centres the line. Unknown characters draw as blanks. */
  text(s: string, x: number | "center", y: number, scale: number, color: Rgb): this {
    const advance = 6 * scale
    const left = x === "center" ? Math.round((W - (s.length * advance - scale)) / 2) : x
    ;[...s.toUpperCase()].forEach((ch, i) => {
      const rows = font[ch]
      if (rows === undefined) return
      rows.forEach((row, ry) => {
        ;[...row].forEach((cell, rx) => {
          if (cell === "#") this.rect(left + i * advance + rx * scale, y + ry * scale, scale, scale, color)
        })
      })
    })
    return this
  }
  jpeg(): Buffer {
    return jpeg.encode({ data: this.data, width: W, height: H }, 55).data
  }
}

const glyphs = `
A .###. #...# #...# ##### #...# #...# #...#
B ####. #...# #...# ####. #...# #...# ####.
C .###. #...# #.... #.... #.... #...# .###.
D ####. #...# #...# #...# #...# #...# ####.
E ##### #.... #.... ####. #.... #.... #####
F ##### #.... #.... ####. #.... #.... #....
G .###. #...# #.... #.### #...# #...# .####
H #...# #...# #...# ##### #...# #...# #...#
I .###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.
J ..### ...#. ...#. ...#. ...#. #..#. .##..
K #...# #..#. #.#.. ##... #.#.. #..#. #...#
L #.... #.... #.... #.... #.... #.... #####
M #...# ##.## #.#.# #.#.# #...# #...# #...#
N #...# #...# ##..# #.#.# #..## #...# #...#
O .###. #...# #...# #...# #...# #...# .###.
P ####. #...# #...# ####. #.... #.... #....
Q .###. #...# #...# #...# #.#.# #..#. .##.#
R ####. #...# #...# ####. #.#.. #..#. #...#
S .#### #.... #.... .###. ....# ....# ####.
T ##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..
U #...# #...# #...# #...# #...# #...# .###.
V #...# #...# #...# #...# #...# .#.#. ..#..
W #...# #...# #...# #.#.# #.#.# #.#.# .#.#.
X #...# #...# .#.#. ..#.. .#.#. #...# #...#
Y #...# #...# .#.#. ..#.. ..#.. ..#.. ..#..
Z ##### ....# ...#. ..#.. .#... #.... #####
0 .###. #...# #..## #.#.# ##..# #...# .###.
1 ..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.
2 .###. #...# ....# ...#. ..#.. .#... #####
3 ####. ....# ....# .###. ....# ....# ####.
4 ...#. ..##. .#.#. #..#. ##### ...#. ...#.
5 ##### #.... ####. ....# ....# #...# .###.
6 ..##. .#... #.... ####. #...# #...# .###.
7 ##### ....# ...#. ..#.. .#... .#... .#...
8 .###. #...# #...# .###. #...# #...# .###.
9 .###. #...# #...# .#### ....# ...#. .##..
: ..... ..#.. ..#.. ..... ..#.. ..#.. .....
. ..... ..... ..... ..... ..... .##.. .##..
- ..... ..... ..... .###. ..... ..... .....
! ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..
`
const font: Record<string, ReadonlyArray<string>> = Object.fromEntries(
  glyphs.trim().split("\n").map((line) => {
    const [ch, ...rows] = line.trim().split(/\s+/)
    return [ch!, rows]
  })
)

// ---------------------------------------------------------------------------------------------
// Palette and recurring props

const c = {
  tile: [236, 238, 232],
  counter: [150, 105, 70],
  board: [205, 160, 105],
  titleRed: [120, 24, 30],
  white: [250, 250, 250],
  cream: [245, 232, 200],
  apron: [40, 140, 70],
  skin: [225, 180, 150],
  hair: [60, 40, 30],
  onion: [215, 185, 130],
  pepper: [205, 30, 35],
  garlic: [240, 238, 225],
  can: [150, 155, 160],
  carton: [200, 190, 170],
  yolk: [250, 190, 30],
  iron: [35, 35, 38],
  stove: [70, 70, 75],
  flame: [70, 110, 240],
  sauce: [185, 45, 30],
  feta: [255, 255, 245],
  parsley: [50, 150, 50],
  bread: [210, 150, 80],
  glass: [190, 215, 225],
  cumin: [160, 110, 40],
  paprika: [190, 60, 30],
  bowl: [90, 120, 170],
  steel: [180, 185, 190],
  dark: [30, 30, 30]
} as const satisfies Record<string, Rgb>

const host = (cv: Canvas, x: number, waving = false) => {
  cv.disc(x, 24, 9, c.skin).rect(x - 9, 14, 18, 5, c.hair).rect(x - 13, 34, 26, 40, c.apron)
  if (waving) cv.rect(x + 13, 16, 5, 20, c.skin)
  return cv
}
const skillet = (cv: Canvas, fill: Rgb) =>
  cv.rect(100, 49, 52, 6, c.iron).disc(70, 52, 34, c.iron).disc(70, 52, 29, fill)
const egg = (cv: Canvas, x: number, y: number) => cv.disc(x, y, 8, c.white).disc(x, y, 3.5, c.yolk)
const eggSpots: ReadonlyArray<readonly [number, number]> = [[56, 40], [84, 40], [56, 64], [84, 64]]
/** The skillet of sauce with an egg in each of the four wells. */
const eggsInSauce = () => {
  const cv = skillet(new Canvas(c.stove), c.sauce)
  for (const [x, y] of eggSpots) egg(cv, x, y)
  return cv
}
/** The wooden cutting board on the counter, seen from above. */
const cuttingBoard = () => new Canvas(c.counter).rect(20, 12, 120, 66, c.board)
/** The chef's knife lying along the bottom of the board. */
const knife = (cv: Canvas) => cv.rect(40, 66, 70, 4, c.steel).rect(110, 65, 22, 6, c.dark)

// ---------------------------------------------------------------------------------------------
// The video: "Weeknight Kitchen — One-Pan Shakshuka", 10 minutes, 2 scenes, 6 events, 20 frames.

interface Frame {
  readonly t: number
  readonly subtitle: string
  readonly card: Record<string, unknown>
  readonly draw: () => Canvas
}
interface Event {
  readonly range: readonly [number, number]
  readonly card: Record<string, unknown>
  readonly frames: ReadonlyArray<Frame>
}
interface Scene {
  readonly range: readonly [number, number]
  readonly card: Record<string, unknown>
  readonly events: ReadonlyArray<Event>
}

const frame = (
  t: number,
  subtitle: string,
  card: {
    frame_summary: string
    visible_entities: ReadonlyArray<string>
    ongoing_actions: ReadonlyArray<string>
    spatial_layout: string
    visual_attributes: Record<string, unknown>
    visible_text: ReadonlyArray<string>
  },
  draw: () => Canvas
): Frame => ({ t, subtitle, card, draw })

const scenes: ReadonlyArray<Scene> = [
  {
    range: [0, 290],
    card: {
      scene_summary:
        "In a bright home kitchen the host, a woman in a green apron, introduces a one-pan shakshuka, lines up the ingredients on the counter, dices an onion and a red bell pepper, minces garlic and measures the spices.",
      main_setting: "A bright home kitchen with white wall tiles, a wooden counter, a cutting board and a gas stove",
      key_entities: [
        "host in a green apron",
        "onion",
        "red bell pepper",
        "garlic",
        "can of crushed tomatoes",
        "four eggs",
        "cumin jar",
        "paprika jar",
        "chef's knife",
        "wooden cutting board"
      ],
      main_actions: [
        "introducing the dish",
        "presenting the ingredients",
        "dicing vegetables",
        "mincing garlic",
        "measuring spices"
      ],
      topic_keywords: ["shakshuka", "recipe", "mise en place", "vegetables", "spices"],
      temporal_flow:
        "Title card and greeting, then the ingredient line-up, then the onion and pepper are diced, then garlic is minced and the spices are measured into a small bowl.",
      visible_text: ["SHAKSHUKA", "WEEKNIGHT KITCHEN", "TOMATO", "CUMIN", "PAPRIKA", "1 TSP CUMIN"]
    },
    events: [
      {
        range: [0, 95],
        card: {
          event_description:
            "A title card reads SHAKSHUKA; the host greets the viewers and lines up the ingredients on the counter: an onion, a red bell pepper, a garlic bulb, a can of crushed tomatoes and a carton holding four eggs.",
          entities: [
            "title card",
            "host in a green apron",
            "onion",
            "red bell pepper",
            "garlic bulb",
            "can of crushed tomatoes",
            "egg carton with four eggs"
          ],
          actions: ["greeting the viewers", "waving", "pointing at each ingredient"],
          action_subjects: ["host"],
          spatial_relations:
            "The ingredients stand in a row on the wooden counter in front of the host; the stove is out of frame.",
          state_changes: "The counter goes from empty to holding every ingredient of the dish.",
          visible_text: ["SHAKSHUKA", "WEEKNIGHT KITCHEN", "TOMATO"]
        },
        frames: [
          frame(
            5,
            "[upbeat music]",
            {
              frame_summary:
                "Title card: SHAKSHUKA in large white block letters on a dark red background, WEEKNIGHT KITCHEN in smaller letters below.",
              visible_entities: ["title card"],
              ongoing_actions: [],
              spatial_layout: "Title centred in the upper half, the show name centred beneath it.",
              visual_attributes: { dominant_colors: ["dark red", "white"], shot: "static graphic" },
              visible_text: ["SHAKSHUKA", "WEEKNIGHT KITCHEN"]
            },
            () =>
              new Canvas(c.titleRed).text("SHAKSHUKA", "center", 26, 2, c.white).text(
                "WEEKNIGHT KITCHEN",
                "center",
                60,
                1,
                c.cream
              )
          ),
          frame(30, "Hi everyone, welcome back to Weeknight Kitchen.", {
            frame_summary:
              "The host, a woman with dark hair in a green apron, waves at the camera in front of white wall tiles.",
            visible_entities: ["host in a green apron", "white wall tiles"],
            ongoing_actions: ["waving at the camera"],
            spatial_layout: "Host in the centre from the waist up; tiled wall behind her.",
            visual_attributes: { apron_color: "green", lighting: "bright, even", shot: "medium shot" },
            visible_text: []
          }, () => host(new Canvas(c.tile), 80, true).rect(0, 74, W, 16, c.counter)),
          frame(
            60,
            "Here's what you need: one onion, one red bell pepper, three cloves of garlic, a can of crushed tomatoes and four eggs.",
            {
              frame_summary:
                "The ingredients in a row on the wooden counter: an onion, a red bell pepper, a garlic bulb, a can labelled TOMATO and an egg carton.",
              visible_entities: ["onion", "red bell pepper", "garlic bulb", "can of crushed tomatoes", "egg carton"],
              ongoing_actions: [],
              spatial_layout: "Left to right: onion, pepper, garlic, tomato can, egg carton, all on the counter.",
              visual_attributes: { pepper_color: "red", counter: "wood", shot: "wide overhead" },
              visible_text: ["TOMATO"]
            },
            () =>
              new Canvas(c.tile)
                .rect(0, 45, W, 45, c.counter)
                .disc(18, 62, 10, c.onion)
                .disc(44, 62, 10, c.pepper)
                .rect(42, 49, 4, 5, c.parsley)
                .disc(66, 66, 7, c.garlic)
                .rect(78, 40, 40, 34, c.can)
                .rect(78, 50, 40, 11, c.white)
                .text("TOMATO", 80, 52, 1, c.titleRed)
                .rect(122, 56, 36, 18, c.carton)
                .disc(131, 61, 4, c.white)
                .disc(143, 61, 4, c.white)
                .disc(131, 69, 4, c.white)
                .disc(143, 69, 4, c.white)
          ),
          frame(85, "Four eggs, one for each of us tonight.", {
            frame_summary: "Close-up of an open egg carton holding four white eggs; the host's hand points at it.",
            visible_entities: ["egg carton", "four eggs", "host's hand"],
            ongoing_actions: ["pointing at the eggs"],
            spatial_layout: "Carton fills the lower middle; the hand enters from the right.",
            visual_attributes: { egg_color: "white", egg_count: 4, shot: "close-up" },
            visible_text: []
          }, () =>
            new Canvas(c.counter)
              .rect(30, 25, 100, 48, c.carton)
              .disc(50, 38, 9, c.white)
              .disc(80, 38, 9, c.white)
              .disc(110, 38, 9, c.white)
              .disc(50, 60, 9, c.white)
              .rect(130, 50, 30, 10, c.skin))
        ]
      },
      {
        range: [95, 200],
        card: {
          event_description:
            "On a wooden cutting board the host peels and dices the onion, then seeds the red bell pepper and cuts it into small squares; both go into a blue bowl.",
          entities: ["wooden cutting board", "chef's knife", "onion", "red bell pepper", "blue bowl"],
          actions: ["peeling", "dicing", "seeding the pepper", "transferring to a bowl"],
          action_subjects: ["host"],
          spatial_relations: "The cutting board sits in the centre of the counter; the bowl stands to its right.",
          state_changes: "The whole onion and pepper become small dice collected in the bowl.",
          visible_text: []
        },
        frames: [
          frame(110, "Start with the onion, nice and small so it melts into the sauce.", {
            frame_summary: "A halved onion on a wooden cutting board with a chef's knife beside it.",
            visible_entities: ["onion", "wooden cutting board", "chef's knife"],
            ongoing_actions: ["dicing the onion"],
            spatial_layout: "Board centred; onion on the left of the board, knife along the bottom edge.",
            visual_attributes: { board: "light wood", knife: "steel blade, black handle", shot: "overhead close-up" },
            visible_text: []
          }, () => knife(cuttingBoard().disc(60, 42, 16, c.onion).ring(60, 42, 10, 2, c.cream))),
          frame(150, "Then the pepper: take out the seeds and cut it into little squares.", {
            frame_summary: "Small red squares of diced bell pepper spread on the cutting board next to the knife.",
            visible_entities: ["diced red bell pepper", "wooden cutting board", "chef's knife"],
            ongoing_actions: ["dicing the pepper"],
            spatial_layout: "Diced pepper in a loose pile in the middle of the board; knife at the bottom.",
            visual_attributes: { pepper_color: "red", cut: "small dice", shot: "overhead close-up" },
            visible_text: []
          }, () => {
            const cv = cuttingBoard()
            for (let i = 0; i < 18; i++) {
              cv.rect(46 + (i % 6) * 11 + (i % 2) * 2, 26 + Math.floor(i / 6) * 10, 6, 6, c.pepper)
            }
            return knife(cv)
          }),
          frame(185, "Everything goes into one bowl, ready for the pan.", {
            frame_summary: "A blue bowl filled with diced onion and red pepper on the counter.",
            visible_entities: ["blue bowl", "diced onion", "diced red bell pepper"],
            ongoing_actions: [],
            spatial_layout: "Bowl in the centre of the frame, seen from above.",
            visual_attributes: { bowl_color: "blue", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = new Canvas(c.counter).disc(80, 45, 34, c.bowl).disc(80, 45, 28, c.cream)
            for (let i = 0; i < 10; i++) cv.rect(62 + (i % 5) * 8, 34 + Math.floor(i / 5) * 12, 5, 5, c.pepper)
            return cv
          })
        ]
      },
      {
        range: [200, 290],
        card: {
          event_description:
            "The host minces three garlic cloves, then measures one teaspoon of cumin and one teaspoon of paprika into a small bowl; a caption reads 1 TSP CUMIN.",
          entities: ["garlic cloves", "chef's knife", "cumin jar", "paprika jar", "teaspoon", "small bowl"],
          actions: ["mincing garlic", "measuring spices"],
          action_subjects: ["host"],
          spatial_relations: "The spice jars stand behind the cutting board; the small bowl is in front of them.",
          state_changes: "The garlic is minced; the spices are measured into the small bowl.",
          visible_text: ["CUMIN", "PAPRIKA", "1 TSP CUMIN"]
        },
        frames: [
          frame(215, "Three cloves of garlic, minced fine.", {
            frame_summary: "Finely minced garlic in a small heap on the cutting board beside three peeled cloves.",
            visible_entities: ["minced garlic", "garlic cloves", "wooden cutting board"],
            ongoing_actions: ["mincing garlic"],
            spatial_layout: "Garlic heap in the centre of the board, whole cloves to the left.",
            visual_attributes: { garlic_color: "off-white", shot: "overhead close-up" },
            visible_text: []
          }, () => {
            const cv = cuttingBoard()
            for (let i = 0; i < 24; i++) cv.rect(72 + (i % 6) * 5, 34 + Math.floor(i / 6) * 5, 3, 3, c.garlic)
            return cv.disc(40, 36, 5, c.garlic).disc(40, 50, 5, c.garlic).disc(52, 43, 5, c.garlic)
          }),
          frame(250, "For the spices: cumin and smoked paprika.", {
            frame_summary:
              "Two spice jars on the counter, one labelled CUMIN with a brown powder, one labelled PAPRIKA with a red powder.",
            visible_entities: ["cumin jar", "paprika jar"],
            ongoing_actions: [],
            spatial_layout: "The cumin jar on the left, the paprika jar on the right, side by side.",
            visual_attributes: { cumin_color: "brown", paprika_color: "red", shot: "close-up" },
            visible_text: ["CUMIN", "PAPRIKA"]
          }, () =>
            new Canvas(c.tile)
              .rect(0, 72, W, 18, c.counter)
              .rect(18, 18, 52, 56, c.cumin)
              .rect(20, 36, 48, 14, c.white)
              .text("CUMIN", 30, 40, 1, c.dark)
              .rect(90, 18, 56, 56, c.paprika)
              .rect(92, 36, 52, 14, c.white)
              .text("PAPRIKA", 98, 40, 1, c.dark)),
          frame(280, "One teaspoon of each.", {
            frame_summary:
              "A teaspoon of cumin held over a small bowl; the caption 1 TSP CUMIN is shown across the top.",
            visible_entities: ["teaspoon", "small bowl", "cumin"],
            ongoing_actions: ["measuring cumin"],
            spatial_layout: "Caption along the top; spoon and bowl in the lower middle.",
            visual_attributes: { caption_color: "white on black", shot: "close-up" },
            visible_text: ["1 TSP CUMIN"]
          }, () =>
            new Canvas(c.counter)
              .rect(0, 0, W, 22, c.dark)
              .text("1 TSP CUMIN", "center", 4, 2, c.white)
              .disc(80, 66, 20, c.bowl)
              .rect(40, 44, 40, 4, c.steel)
              .disc(84, 46, 7, c.cumin))
        ]
      }
    ]
  },
  {
    range: [290, 600],
    card: {
      scene_summary:
        "At the gas stove the host builds the sauce in a black cast-iron skillet, cooks four eggs in it under a glass lid while a 6 MIN timer runs, then tops the dish with feta and parsley and serves it with toasted bread.",
      main_setting: "A gas stove with a black cast-iron skillet; later the counter with a bread board",
      key_entities: [
        "host in a green apron",
        "black cast-iron skillet",
        "gas stove",
        "tomato sauce",
        "four eggs",
        "glass lid",
        "feta",
        "parsley",
        "toasted bread"
      ],
      main_actions: [
        "sautéing vegetables",
        "simmering the sauce",
        "cracking eggs into the sauce",
        "covering the skillet",
        "garnishing",
        "serving"
      ],
      topic_keywords: ["shakshuka", "cast iron", "poached eggs", "tomato sauce", "serving"],
      temporal_flow:
        "Oil heats, onion and pepper soften, tomatoes go in and simmer; four wells are made and four eggs cracked in; the lid goes on with a 6-minute timer; feta and parsley go on top and the dish is served; end card.",
      visible_text: ["6 MIN", "EAT WELL"]
    },
    events: [
      {
        range: [290, 400],
        card: {
          event_description:
            "The host heats olive oil in a black cast-iron skillet over a blue gas flame, sautés the onion and pepper until soft, stirs in the garlic and spices, then pours in the crushed tomatoes and lets the sauce simmer.",
          entities: [
            "black cast-iron skillet",
            "gas stove",
            "olive oil",
            "diced onion and pepper",
            "crushed tomatoes",
            "wooden spoon"
          ],
          actions: ["heating oil", "sautéing", "stirring", "pouring tomatoes", "simmering"],
          action_subjects: ["host"],
          spatial_relations: "The skillet sits on the front burner with its handle pointing right.",
          state_changes: "The vegetables soften and the pan turns from pale vegetables to a thick red simmering sauce.",
          visible_text: []
        },
        frames: [
          frame(300, "A good glug of olive oil into the cast-iron pan.", {
            frame_summary: "An empty black cast-iron skillet with a thin layer of oil on a lit gas burner.",
            visible_entities: ["black cast-iron skillet", "gas burner", "olive oil"],
            ongoing_actions: ["heating oil"],
            spatial_layout: "Skillet centred on the stove top, handle to the right, blue flame visible below.",
            visual_attributes: { skillet: "black cast iron", flame_color: "blue", shot: "overhead" },
            visible_text: []
          }, () => skillet(new Canvas(c.stove).rect(30, 84, 80, 6, c.flame), [70, 62, 40])),
          frame(340, "Onion and pepper in, and let them soften for about five minutes.", {
            frame_summary: "Diced onion and red pepper sizzling in the cast-iron skillet; a wooden spoon stirs them.",
            visible_entities: ["black cast-iron skillet", "diced onion", "diced red pepper", "wooden spoon"],
            ongoing_actions: ["sautéing", "stirring"],
            spatial_layout: "Vegetables spread across the skillet; spoon enters from the top right.",
            visual_attributes: { skillet: "black cast iron", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = skillet(new Canvas(c.stove), [90, 70, 40])
            for (let i = 0; i < 16; i++) {
              cv.rect(50 + (i % 4) * 11, 34 + Math.floor(i / 4) * 10, 5, 5, i % 3 === 0 ? c.onion : c.pepper)
            }
            return cv.rect(95, 10, 6, 40, c.board)
          }),
          frame(385, "Now the tomatoes. Let that bubble away until it thickens.", {
            frame_summary: "A thick red tomato sauce bubbling in the cast-iron skillet.",
            visible_entities: ["black cast-iron skillet", "tomato sauce"],
            ongoing_actions: ["simmering"],
            spatial_layout: "Sauce fills the skillet; small bubbles across the surface.",
            visual_attributes: { sauce_color: "deep red", texture: "bubbling", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = skillet(new Canvas(c.stove), c.sauce)
            for (const [x, y] of [[55, 40], [80, 45], [66, 62], [88, 60], [60, 52]] as const) {
              cv.ring(x, y, 3, 1, [220, 90, 60])
            }
            return cv
          })
        ]
      },
      {
        range: [400, 500],
        card: {
          event_description:
            "With a spoon the host makes four wells in the sauce and cracks an egg into each, so four eggs sit in the skillet; she covers it with a glass lid and an on-screen timer shows 6 MIN.",
          entities: ["black cast-iron skillet", "tomato sauce", "four eggs", "spoon", "glass lid", "on-screen timer"],
          actions: ["making wells", "cracking eggs", "covering the skillet"],
          action_subjects: ["host"],
          spatial_relations: "The four eggs sit in a two-by-two grid in the sauce.",
          state_changes: "The sauce gains four raw eggs; the skillet is then covered while the whites set.",
          visible_text: ["6 MIN"]
        },
        frames: [
          frame(410, "Make four little wells with the back of a spoon.", {
            frame_summary: "Four dark hollows pressed into the red sauce in the skillet, arranged two by two.",
            visible_entities: ["black cast-iron skillet", "tomato sauce", "four wells"],
            ongoing_actions: ["making wells with a spoon"],
            spatial_layout: "The wells form a square in the middle of the skillet.",
            visual_attributes: { sauce_color: "deep red", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = skillet(new Canvas(c.stove), c.sauce)
            for (const [x, y] of eggSpots) cv.disc(x, y, 7, [120, 25, 20])
            return cv
          }),
          frame(440, "Crack the eggs in one at a time.", {
            frame_summary: "Two eggs already cracked into the sauce; two wells are still empty.",
            visible_entities: ["black cast-iron skillet", "tomato sauce", "two eggs", "two empty wells"],
            ongoing_actions: ["cracking eggs into the sauce"],
            spatial_layout: "Eggs in the top two wells; the bottom two wells empty.",
            visual_attributes: { yolk_color: "orange-yellow", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = skillet(new Canvas(c.stove), c.sauce)
            egg(cv, 56, 40)
            egg(cv, 84, 40)
            return cv.disc(56, 64, 7, [120, 25, 20]).disc(84, 64, 7, [120, 25, 20])
          }),
          frame(470, "That's all four in.", {
            frame_summary: "Four eggs with bright yolks sit in the red sauce, two by two.",
            visible_entities: ["black cast-iron skillet", "tomato sauce", "four eggs"],
            ongoing_actions: [],
            spatial_layout: "The four eggs fill the four wells in a square.",
            visual_attributes: { egg_count: 4, yolk_color: "orange-yellow", shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = eggsInSauce()
            return cv
          }),
          frame(495, "Lid on, and give it about six minutes.", {
            frame_summary: "A glass lid covers the skillet; an on-screen timer in the corner reads 6 MIN.",
            visible_entities: ["glass lid", "black cast-iron skillet", "four eggs", "on-screen timer"],
            ongoing_actions: ["eggs cooking under the lid"],
            spatial_layout: "Covered skillet on the left; the timer graphic in the top right corner.",
            visual_attributes: { lid: "clear glass", timer_color: "white on black", shot: "overhead" },
            visible_text: ["6 MIN"]
          }, () => {
            const cv = eggsInSauce()
            return cv.ring(70, 52, 31, 4, c.glass).disc(70, 52, 4, c.dark).rect(96, 4, 62, 20, c.dark).text(
              "6 MIN",
              98,
              7,
              2,
              c.white
            )
          })
        ]
      },
      {
        range: [500, 600],
        card: {
          event_description:
            "The host lifts the lid to show set whites and runny yolks, scatters crumbled feta and chopped parsley over the top, serves the skillet with slices of toasted bread and says goodbye; the end card reads EAT WELL.",
          entities: ["black cast-iron skillet", "four eggs", "feta", "parsley", "toasted bread", "end card"],
          actions: ["lifting the lid", "garnishing", "serving", "saying goodbye"],
          action_subjects: ["host"],
          spatial_relations: "The skillet is moved onto a wooden board beside the bread slices.",
          state_changes: "The eggs go from raw to set; the dish is garnished and served.",
          visible_text: ["EAT WELL"]
        },
        frames: [
          frame(515, "Some crumbled feta and a handful of parsley on top.", {
            frame_summary:
              "The finished shakshuka: four cooked eggs in red sauce sprinkled with white feta crumbs and green parsley.",
            visible_entities: ["black cast-iron skillet", "four eggs", "feta", "parsley"],
            ongoing_actions: ["sprinkling garnish"],
            spatial_layout: "Eggs in a square; garnish scattered between them.",
            visual_attributes: { garnish_colors: ["white", "green"], shot: "overhead" },
            visible_text: []
          }, () => {
            const cv = eggsInSauce()
            for (let i = 0; i < 12; i++) {
              cv.rect(50 + ((i * 17) % 40), 34 + ((i * 23) % 36), 3, 3, i % 2 === 0 ? c.feta : c.parsley)
            }
            return cv
          }),
          frame(555, "Serve it straight from the pan with some toasted bread.", {
            frame_summary: "The skillet on a wooden board with three slices of toasted bread beside it.",
            visible_entities: ["black cast-iron skillet", "wooden board", "toasted bread"],
            ongoing_actions: ["serving"],
            spatial_layout: "Skillet on the left half of the board, bread slices fanned on the right.",
            visual_attributes: { bread: "golden toast", shot: "wide overhead" },
            visible_text: []
          }, () => {
            const cv = new Canvas(c.counter).rect(8, 10, 146, 72, c.board).disc(52, 46, 30, c.iron).disc(
              52,
              46,
              25,
              c.sauce
            )
            for (const [x, y] of [[42, 36], [62, 36], [42, 56], [62, 56]] as const) {
              cv.disc(x, y, 6, c.white).disc(x, y, 2.5, c.yolk)
            }
            for (const [x, y] of [[98, 18], [112, 42], [128, 24]] as const) {
              cv.rect(x - 1, y - 1, 24, 28, [150, 95, 45]).rect(x, y, 22, 26, c.bread)
            }
            return cv
          }),
          frame(590, "That's it for tonight. Eat well, and see you next week!", {
            frame_summary: "End card: EAT WELL in large white block letters on a dark red background.",
            visible_entities: ["end card"],
            ongoing_actions: [],
            spatial_layout: "Text centred on a plain background.",
            visual_attributes: { dominant_colors: ["dark red", "white"], shot: "static graphic" },
            visible_text: ["EAT WELL"]
          }, () => new Canvas(c.titleRed).text("EAT WELL", "center", 34, 3, c.white))
        ]
      }
    ]
  }
]

// ---------------------------------------------------------------------------------------------
// Flat tree.json (DESIGN §5.1): subtitles of a parent are its children's, joined in order.

const pad = (n: number) => String(n).padStart(3, "0")
const nodes: Record<string, unknown> = {}
const frameImages: Array<{ readonly file: string; readonly draw: () => Canvas }> = []

scenes.forEach((scene, si) => {
  const l1 = `${videoId}_L1_${pad(si)}`
  const l2Ids = scene.events.map((_, ei) => `${l1}_L2_${pad(ei)}`)
  const l2Subtitles = scene.events.map((e) => e.frames.map((f) => f.subtitle).join(" "))
  nodes[l1] = {
    level: 1,
    time_range: scene.range,
    card: scene.card,
    subtitle: l2Subtitles.join(" "),
    children_ids: l2Ids
  }
  scene.events.forEach((event, ei) => {
    const l2 = l2Ids[ei]!
    const l3Ids = event.frames.map((_, fi) => `${l2}_L3_${pad(fi)}`)
    nodes[l2] = {
      level: 2,
      time_range: event.range,
      card: event.card,
      subtitle: l2Subtitles[ei],
      children_ids: l3Ids
    }
    event.frames.forEach((f, fi) => {
      const l3 = l3Ids[fi]!
      nodes[l3] = { level: 3, time_range: [f.t, f.t], card: f.card, subtitle: f.subtitle, children_ids: [] }
      frameImages.push({ file: `${l3.slice(videoId.length + 1)}.jpg`, draw: f.draw })
    })
  })
})

const tree = {
  videoID: videoId,
  duration_category: "medium",
  duration_seconds: 600,
  domain: "Life Record",
  nodes
}

// ---------------------------------------------------------------------------------------------
// Questions, each answerable from the tree's cards, subtitles or frames.

const questions = [
  {
    question_id: "001-1",
    task_type: "Counting Problem",
    question: "How many eggs does the host cook in the skillet?",
    options: ["A. Two", "B. Three", "C. Four", "D. Six"],
    answer: "C"
  },
  {
    question_id: "001-2",
    task_type: "Attribute Perception",
    question: "What color is the bell pepper the host dices?",
    options: ["A. Green", "B. Yellow", "C. Orange", "D. Red"],
    answer: "D"
  },
  {
    question_id: "001-3",
    task_type: "Object Recognition",
    question: "In which cookware is the shakshuka cooked?",
    options: ["A. A wok", "B. A stainless-steel saucepan", "C. A black cast-iron skillet", "D. A glass baking dish"],
    answer: "C"
  },
  {
    question_id: "001-4",
    task_type: "Action Recognition",
    question: "What does the host do right after cracking the eggs into the sauce?",
    options: [
      "A. She covers the skillet with a glass lid.",
      "B. She stirs the eggs into the sauce.",
      "C. She moves the skillet into the oven.",
      "D. She pours in more crushed tomatoes."
    ],
    answer: "A"
  },
  {
    question_id: "001-5",
    task_type: "OCR Problems",
    question: "What cooking time does the on-screen timer show once the skillet is covered?",
    options: ["A. 4 MIN", "B. 6 MIN", "C. 8 MIN", "D. 10 MIN"],
    answer: "B"
  },
  {
    question_id: "001-6",
    task_type: "Temporal Reasoning",
    question: "Which of these happens first in the video?",
    options: [
      "A. The eggs are cracked into the sauce.",
      "B. The spices are measured.",
      "C. The onion is diced.",
      "D. Feta is scattered over the dish."
    ],
    answer: "C"
  },
  {
    question_id: "001-7",
    task_type: "Information Synopsis",
    question: "What is the video mainly about?",
    options: [
      "A. A review comparing different cast-iron pans.",
      "B. A step-by-step recipe for shakshuka, eggs cooked in a spiced tomato and pepper sauce.",
      "C. A guide to choosing vegetables at a market.",
      "D. A tutorial on baking bread at home."
    ],
    answer: "B"
  }
]

const rows = videoMmeRows(
  { video_id: "001", duration: "medium", domain: "Life Record", sub_category: "Food", videoID: videoId },
  questions
)

// ---------------------------------------------------------------------------------------------

const treeDir = path.join(outDir, "trees", videoId)
rmSync(path.join(treeDir, "frames"), { recursive: true, force: true })
mkdirSync(path.join(treeDir, "frames"), { recursive: true })
mkdirSync(path.join(outDir, "questions"), { recursive: true })

writeFileSync(path.join(treeDir, "tree.json"), JSON.stringify(tree, null, 2) + "\n")
let bytes = 0
for (const { file, draw } of frameImages) {
  const data = draw().jpeg()
  bytes += data.length
  writeFileSync(path.join(treeDir, "frames", file), data)
}
writeFileSync(path.join(outDir, "questions", `${videoId}.json`), JSON.stringify(questions, null, 2) + "\n")
writeFileSync(path.join(outDir, "questions.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n")

const count = (level: number) => Object.values(nodes).filter((n) => (n as { level: number }).level === level).length
console.log(
  `${path.relative(process.cwd(), outDir) || "."}: ${count(1)} scenes, ${count(2)} events, ${count(3)} frames ` +
    `(${(bytes / 1024).toFixed(1)} KiB of JPEG), ${questions.length} questions`
)
