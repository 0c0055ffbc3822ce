import { type Static, Type } from "@sinclair/typebox";
import { AudioTask } from "./audio.ts";
import { ImageTask } from "./images.ts";

/** Spec 2.16: the `data` of the music-task reader: the task's state, plus its tracks once done. */
export const MusicTaskData = Type.Object({
  task_id: Type.String(),
  status: ImageTask.properties.status,
  progress: Type.Integer({ minimum: 0, maximum: 100, description: "Percent done." }),
  model: Type.String(),
  operation: Type.String(),
  tracks: AudioTask.properties.tracks,
  fail_reason: Type.Union([Type.String(), Type.Null()], {
    description: "Why the task failed; null unless it failed.",
  }),
});

/** GET /musiccompat/fetch/{id}. */
export const MusicFetch = Type.Object({
  code: Type.String({ description: "`success`." }),
  message: Type.String(),
  data: MusicTaskData,
});
export type MusicFetch = Static<typeof MusicFetch>;

/** POST /musiccompat/fetch: the caller's tasks among the ids, in no particular order. */
export const MusicFetchList = Type.Object({
  code: Type.String({ description: "`success`." }),
  message: Type.String(),
  data: Type.Array(MusicTaskData),
});
export type MusicFetchList = Static<typeof MusicFetchList>;

/** Spec 2.16: the image-task reader object of older clients. */
export const ImageCompatTask = Type.Object({
  id: Type.String(),
  status: ImageTask.properties.status,
  progress: Type.String({ description: "Percent done with a % sign, e.g. `50%`." }),
  imageUrl: Type.Union([Type.String(), Type.Null()], {
    description: "The first image's signed link, once completed.",
  }),
  imageUrls: Type.Array(Type.String()),
  failReason: Type.String({ description: "Why the task failed; empty unless it failed." }),
  model: Type.String(),
  operation: Type.String(),
  prompt: Type.String(),
  submitTime: Type.Integer({ description: "Unix milliseconds." }),
  finishTime: Type.Union([Type.Integer(), Type.Null()], { description: "Unix milliseconds." }),
});
export type ImageCompatTask = Static<typeof ImageCompatTask>;

/** POST /{mode}/imgcompat/task/list-by-condition: the caller's image tasks among the ids. */
export const ImageCompatTaskList = Type.Array(ImageCompatTask);

/** GET /{mode}/imgcompat/task/{id}/image-seed. */
export const ImageCompatSeed = Type.Object({
  code: Type.Integer({ description: "`1` for success." }),
  description: Type.String(),
  properties: Type.Object({ model: Type.String(), operation: Type.String() }),
  result: Type.Integer({
    description: "The seed: the one the call set, else one stable per task.",
  }),
});
export type ImageCompatSeed = Static<typeof ImageCompatSeed>;
