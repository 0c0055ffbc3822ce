// Proves spec 8.4 on the task reads: the audio GET is under the key + model + user window,
// while video reads and the compatibility readers are not under the model request limit.
import { expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

test("audio reads count in the key + model window; video and compat reads do not", async () => {
  const api = await startTestApi({ RATE_LIMIT_MODELS: "off", RATE_LIMIT_MODEL: "2/60s" });
  const { secret } = await api.account();
  const audio = `/v1/audio/generations/aud_${"0".repeat(24)}`;
  expect((await api.call("GET", audio, { key: secret })).status).toBe(404);
  expect((await api.call("GET", audio, { key: secret })).status).toBe(404);
  const third = await api.call("GET", audio, { key: secret });
  expect(third.status).toBe(429);
  expect(((await third.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  for (let i = 0; i < 4; i++) {
    for (const path of [
      `/v1/videos/vid_${"0".repeat(24)}`,
      `/v1/video/generations/vid_${"0".repeat(24)}`,
      `/musiccompat/fetch/aud_${"0".repeat(24)}`,
      `/imgcompat/task/img_${"0".repeat(24)}/fetch`,
    ])
      expect({ path, status: (await api.call("GET", path, { key: secret })).status }).toEqual({
        path,
        status: 404,
      });
  }
});
