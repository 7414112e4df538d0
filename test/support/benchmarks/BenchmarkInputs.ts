// Inputs shaped like the released files, a few rows each with the tricky cases, as a loader hands them over.
import { assert } from "@effect/vitest"
import { Either } from "effect"
import type { BenchmarkInput, FileContent, InputFile } from "../../../src/programs/benchmarks/Benchmark.js"
import {
  classifyText,
  decodeBenchmark,
  type DecodeOptions
} from "../../../src/programs/benchmarks/BenchmarkQuestions.js"

const parseJson = (text: string) => Either.try(() => JSON.parse(text) as unknown)

export const content = (text: string): FileContent => classifyText(text, parseJson)
export const inputFile = (file: string, text: string): InputFile => ({ file, content: content(text) })
export const fileInput = (file: string, text: string): BenchmarkInput => ({ _tag: "File", file: inputFile(file, text) })
export const folderInput = (dir: string, files: ReadonlyArray<readonly [string, string]>): BenchmarkInput => ({
  _tag: "Folder",
  dir,
  files: files.map(([name, text]) => inputFile(`${dir}/${name}`, text))
})
export const jsonl = (...rows: ReadonlyArray<unknown>) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n"
export const json = (value: unknown) => JSON.stringify(value, null, 2)

export const videoMmeRows = [
  {
    video_id: "001",
    duration: "short",
    domain: "Knowledge",
    sub_category: "Humanity & History",
    url: "https://www.youtube.com/watch?v=fFjv93ACGo8",
    videoID: "fFjv93ACGo8",
    question_id: "001-1",
    task_type: "Counting Problem",
    question:
      "When demonstrating the Germany modern Christmas tree is initially decorated with apples, candles and berries, which kind of the decoration has the largest number?",
    options: ["A. Apples.", "B. Candles.", "C. Berries.", "D. The three kinds are of the same number."],
    answer: "C"
  },
  {
    video_id: "001",
    duration: "short",
    domain: "Knowledge",
    sub_category: "Humanity & History",
    url: "https://www.youtube.com/watch?v=fFjv93ACGo8",
    videoID: "fFjv93ACGo8",
    question_id: "001-2",
    task_type: "Information Synopsis",
    question: "What is the genre of this video?",
    options: [
      "A. It is a news report that introduces the history behind Christmas decorations.",
      "B. It is a documentary on the evolution of Christmas holiday recipes.",
      "C. It is a travel vlog exploring Christmas markets around the world.",
      "D. It is a tutorial on DIY Christmas ornament crafting."
    ],
    answer: "A"
  },
  {
    video_id: "601",
    duration: "long",
    domain: "Sports Competition",
    sub_category: "Football",
    videoID: "hJqfK0aKv3U",
    question_id: "601-1",
    task_type: "Temporal Reasoning",
    question: "Which team scored first?",
    options: ["A. Red.", "B. Blue.", "C. Neither.", "D. Both at once."],
    answer: "B"
  }
]

// One video line per video; the second question has two types and text after its options.
export const lvBenchLines = [
  {
    key: "4FLo1Y5jGxU",
    type: "cartoon",
    video_info: { duration_minutes: 65.5, fps: 30, resolution: { width: 640, height: 360 } },
    qa: [
      {
        uid: "1",
        question: "What bird appears at the start of the video?\n(A) Hawk\n(B) Crow\n(C) Owl\n(D) Sparrow",
        answer: "A",
        question_type: ["entity recognition"],
        time_reference: "00:15-00:19"
      },
      {
        uid: "2",
        question:
          "Why does the fox\nrun away?\n(A) It is\nscared by a dog\n(B) It is hungry\n(C) It hears (a) shot\n(D) It is chasing a rabbit\n\nAnswer with the letter.",
        answer: "C",
        question_type: ["reasoning", "key information retrieval"],
        time_reference: "10:02-10:40"
      }
    ]
  },
  {
    key: "Cm73ma6Ibcs",
    type: "documentary",
    video_info: { duration_minutes: 80 },
    qa: [
      {
        uid: "3",
        question: "What happens after the storm?\n(A) Rain\n(B) Sun\n(C) Snow\n(D) Fog",
        answer: "B",
        question_type: ["event understanding"],
        time_reference: "30:00-31:00"
      }
    ]
  }
]

export const longVideoBenchRows = [
  {
    video_id: "86CxyhFV9MI",
    question: "In the video, which subtitles appear at the same time as the man with black hair?",
    question_wo_referring_query: "Which subtitles appear at the same time?",
    candidates: ["someone asking", "an apple", "a cat", "a glass of water"],
    correct_choice: 3,
    position: [1, 2],
    topic_category: "NP-News-Programs",
    question_category: "TOS",
    level: "L2-Relation",
    id: "86CxyhFV9MI_0",
    video_path: "86CxyhFV9MI.mp4",
    subtitle_path: "86CxyhFV9MI_en.json",
    duration_group: 600,
    starting_timestamp_for_subtitles: 0,
    duration: 173.4,
    view_count: 11116
  },
  {
    video_id: "-8lu-6Vx8as",
    question: "What does the woman hold when the music begins?",
    candidates: ["a book", "a cup", "a phone", "a pen", "nothing"],
    correct_choice: 0,
    topic_category: "KS-Knowledge-STEM",
    question_category: "S2E",
    level: "L1-Perception",
    id: "-8lu-6Vx8as_1",
    video_path: "-8lu-6Vx8as.mp4",
    subtitle_path: "-8lu-6Vx8as_en.json",
    duration_group: 15,
    starting_timestamp_for_subtitles: 12.5,
    duration: 14.2
  }
]

/** The test split: no correct_choice. */
export const longVideoBenchTestRows = longVideoBenchRows.map(({ correct_choice: _, ...row }) => row)

export const mlvuPlotQa = [
  {
    video: "movie101_66.mp4",
    duration: 246,
    question: "What color is the main male character in the video?",
    candidates: ["Yellow", "Red", "Green", "Blue"],
    answer: "Yellow",
    question_type: "plotQA"
  },
  {
    video: "movie101_67.mp4",
    duration: 180,
    question: "Where does the story take place?",
    candidates: ["In a school", "On a ship", "In a forest", "In a city"],
    answer: " on a ship",
    question_type: "plotQA"
  }
]

export const mlvuNeedle = [
  {
    video: "needle_32.mp4",
    duration: 467.1,
    question: "What does the hand coming out of the computer do?",
    candidates: [
      "Delivers a product",
      "Shakes the woman's hand",
      "Takes the woman's credit card",
      "Points at the screen"
    ],
    answer: "Delivers a product",
    question_type: "needle"
  }
]

export const mlvuTestRows = [
  {
    video: "test_1.mp4",
    duration: 300,
    question: "What sport is played?",
    candidates: ["Tennis", "Golf", "Chess", "Rugby", "Polo", "Darts"],
    question_type: "sportsQA",
    question_id: "AQA_1"
  },
  {
    video: "test_2.mp4",
    duration: 420,
    question: "What is cooked first?",
    candidates: ["Rice", "Eggs", "Fish", "Beans", "Bread", "Soup"],
    question_type: "tutorialQA",
    question_id: "AQA_2"
  }
]

export const egoSchemaRows = [
  {
    q_uid: "0074f737-11cb-497d-8d07-77c3a8127391",
    google_drive_id: "1ce1mDeLl7Zk6ABGpXaAd8bGXU2Y5ZOHc",
    question:
      "Taking into account all the actions performed by c, what can you deduce about the primary objective and focus within the video content?",
    "option 0": "C is cooking.",
    "option 1": "C is doing laundry.",
    "option 2": "C is cleaning the kitchen.",
    "option 3": "C is cleaning dishes.",
    "option 4": "C is cleaning the bathroom."
  },
  {
    q_uid: "00b9a0de-c59e-49cb-a127-6081e2fb8c8e",
    google_drive_id: "1L4oZAqbB4lqcElEfA-xDS_Ym-gHeYAR6",
    question: "What was the primary purpose of the cup of water in this video?",
    "option 0": "To provide hydration.",
    "option 1": "To clean the paintbrush.",
    "option 2": "To mix with paint.",
    "option 3": "To cool the tea.",
    "option 4": "To water a plant."
  },
  {
    q_uid: "00f93e1e-cf4e-4835-88b4-4ad68216e86f",
    google_drive_id: "1CmvJRKKtFSJ9VPB1xN7h5EN_Wx0X1Q4s",
    question: "What is the overarching theme of the video?",
    "option 0": "Building.",
    "option 1": "Repair.",
    "option 2": "Gardening.",
    "option 3": "Cooking.",
    "option 4": "Painting."
  }
]

/** The public subset's keys: two of the three questions. */
export const egoSchemaSubset = { "0074f737-11cb-497d-8d07-77c3a8127391": 3, "00b9a0de-c59e-49cb-a127-6081e2fb8c8e": 1 }

// A quoted question with a comma, a doubled quote, and a CRLF line end.
export const nextQaCsv = [
  "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4",
  "4010069381,369,640,480,why did the boy pick up one present from the group of them and move to the sofa,3,6,CW,share with the girl,approach lady sitting there,unwrap it,playing with toy train,gesture something",
  "4010069381,369,640,480,\"what did the man do after he said \"\"ok, go\"\"\",1,7,TN,\"sit, then stand\",clap,wave,jump,run",
  "6233408665,1800,640,360,how many people are there,0,2,DC,two,three,four,five,six"
].join("\r\n") + "\r\n"

/** What `decodeBenchmark` reads from the input; a refusal fails the test with its message. */
export const decoded = (input: BenchmarkInput, options?: DecodeOptions) => {
  const result = decodeBenchmark(input, options)
  if (Either.isLeft(result)) return assert.fail(result.left.message)
  return result.right
}
