// Question rows in the Video-MME release's layout, shared by the sample maker and the demo so both write
// the same fields in the same order.

interface Video {
  readonly video_id: string
  readonly duration: string
  readonly domain: string
  readonly sub_category: string
  readonly videoID: string
}

interface Question {
  readonly question_id: string
  readonly task_type: string
  readonly question: string
  readonly options: ReadonlyArray<string>
  readonly answer: string
}

/** One row per question of `video`, its fields in the release's order. */
export const videoMmeRows = (video: Video, questions: ReadonlyArray<Question>) =>
  questions.map((q) => ({
    video_id: video.video_id,
    duration: video.duration,
    domain: video.domain,
    sub_category: video.sub_category,
    videoID: video.videoID,
    question_id: q.question_id,
    task_type: q.task_type,
    question: q.question,
    options: q.options,
    answer: q.answer
  }))
