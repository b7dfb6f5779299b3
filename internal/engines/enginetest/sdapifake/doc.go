// Package sdapifake is an AUTOMATIC1111-style "sdapi" server for tests (the /sdapi/v1 API
// that A1111, Forge and SD.Next serve, and stable-diffusion.cpp's sd-server in part). A
// client that works against it works against the real servers:
//
//   - POST /sdapi/v1/txt2img and /sdapi/v1/img2img check every field against the request
//     models of A1111's modules/api/models.py (fields of StableDiffusionProcessing*,
//     plus the API's own), answering FastAPI's 422 {"detail":[{loc,msg,type}]} for a
//     field of the wrong JSON type. It is stricter than the real server on purpose:
//     pydantic coerces ("5" becomes 5) and silently ignores unknown fields, the fake
//     refuses both, so a typo in a client cannot pass unnoticed. Unknown samplers get
//     A1111's 404 "Sampler not found" in its {"error","detail","body","errors"} shape.
//   - generations hold one lock, as A1111's queue_lock: one runs, the others wait with
//     their HTTP request open. txt2img paints a picture from seed and prompt
//     (fakekit.Scene) at width x height; img2img starts from init_images[0] (base64 or a
//     data URL), keeps 1-denoising_strength of it, and with a mask (white = repaint,
//     inpainting_mask_invert flips it) leaves pixels outside the mask as they were.
//     Answers are {"images":[base64 PNG], "parameters":{...}, "info":"<JSON string>"}.
//   - force_task_id names the task; POST /internal/progress {id_task} says whether it is
//     active, queued or completed; GET /sdapi/v1/progress shows the current task;
//     POST /sdapi/v1/interrupt stops whatever runs (the result so far is returned, 200).
//   - HTTP Basic auth on every route when configured (--api-auth), 401 otherwise.
//   - GET /sdapi/v1/options, /sdapi/v1/sd-models for health and the checkpoint list.
//
// Flavor "sdcpp" drops what stable-diffusion.cpp's sd-server lacks (interrupt and
// progress routes, 404) and answers errors as {"error":"<text>"}.
//
// Tests arm faults (slowness, hangs, 429, failures, a dead backend) and read what was
// received (Requests, Interrupts).
package sdapifake
