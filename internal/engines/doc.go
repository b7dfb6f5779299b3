// Package engines drives generative image backends (OpenAI Images, ComfyUI, A1111/Forge
// sdapi) behind the same core.Engine the builtin compositor implements. It is the
// framework the adapters share; each adapter is a small package beside it
// (engines/openai, engines/comfyui, engines/sdapi) that speaks one protocol.
//
// # What an adapter implements
//
// An adapter is a Kind (registered with one line in engines/registry) whose New builds a
// Backend for one URL of --engine-url from a BackendConfig (URL, key, model, workflows
// dir, a shared HTTP client, a logger). A Backend has four methods:
//
//   - Caps() Caps: the operations it does itself, among CapText, CapReference,
//     CapSupport, CapEdit, CapMask, CapPersona, CapStyle, CapFaceSwap. The engine runs
//     the others on the builtin: a thumbnail whose reference the backend cannot take runs
//     wholly on the builtin; a persona it cannot take is the builtin face swap of the
//     persona's face onto the generated scene (the portrait composited where the scene
//     has no face); a style, the builtin's colour transfer; a support image, the
//     builtin's inset card; an edit or mask it cannot do, the builtin edit; a face swap,
//     the builtin swap. Caps may depend on configuration (comfyui without persona.json).
//   - Size(core.Format) (w, h): the picture size to ask for, same orientation as the
//     format. The engine crops every input to it and crops the answer to the exact
//     output size (1280x720, 720x1280, 1080x1080), faces and detail first.
//   - Generate(ctx, *Request) ([]byte, error): one picture. The Request is complete: the
//     prompt (the user's words verbatim plus guidance, or the edit instruction as
//     written), the negative prompt, the size, the tier (Tier: Level, OpenAI Quality,
//     diffusion Steps), a seed, and images already at Width x Height: Image (reference /
//     picture to edit / swap target), Strength (denoise: 0.35 high, 0.55 medium, 0.75 low
//     image weight), Mask (*image.Gray, white = edit), Support, Faces (persona crops, or
//     the face to swap in), Styles. The adapter maps it onto its protocol, nothing more,
//     and returns the bytes of the picture (PNG, JPEG, WebP) as the backend sent them:
//     the engine decodes them in one place (DecodePicture, Options.Decode).
//   - Ping(ctx): a cheap liveness check with the key (GET {url}/models, GET
//     /system_stats, GET /sdapi/v1/options). A backend may also implement Checker for
//     `thumbforge engine check` (model listed, workflows valid, ...).
//
// Rules every adapter follows:
//
//   - Context: Generate returns promptly when ctx ends, with ctx.Err(), after cancelling
//     the backend's job where the protocol allows (ComfyUI POST /interrupt with the
//     prompt_id and a queue delete, A1111 interrupt only when the running task is ours;
//     closing the HTTP request otherwise). Cancellation uses a short context of its own,
//     since ctx is already done.
//   - Progress: call core.ReportProgress(ctx, 0..100) with the backend's own progress
//     (ComfyUI progress events, A1111 task progress); the engine rescales it into the
//     request's progress.
//   - Errors: return *Error so the engine and the pool know what happened. FromResponse
//     turns a non-2xx answer into one (429 Busy with Retry-After, 401/403/502/503/504
//     Unavailable, else Failed, and Refused when the given func recognises a safety
//     refusal in the body); Unavailable(err) for a transport failure; Failed(...) for an
//     answer without a usable picture (an execution error, no image); Busy for a full
//     queue. The backend's own text goes in Detail: it is logged (with the key removed),
//     never returned to a client.
//   - Secrets: the key goes in a header (Bearer, Basic), never in a URL, a log line or an
//     error message.
//   - Concurrency: a Backend is used by many goroutines; the pool bounds how many at once
//     (--engine-concurrency, Kind.DefaultConcurrency).
//
// The conformance suite in engines/enginetest (Run) is what "works" means: every adapter
// passes it against its protocol fake and, when THUMBFORGE_TEST_<KIND>_URL is set,
// against a real server.
//
// # What the engine does around an adapter
//
//   - Prompt (prompt.go): the user's prompt and the persona's and style's special
//     instructions verbatim; mdl_2 with a reference ignores the prompt (the API's rule);
//     guidance for the reference, the persona, the style (and its palette in colour
//     names), the support image, composition, the band that survives the crop; in
//     overlay mode "no text" and a negative prompt against text, in model mode the
//     headline the model must draw.
//   - Tiers (tiers.go): mdl_2 fastest and cheapest ... mdl_4_5 best.
//   - Finishing (thumbnail.go, builtin.Finish): the picture cropped to the output size,
//     then the builtin's layers: the headline in overlay mode (the builtin's typography,
//     contrast at least 4.5:1, never clipped, on the side away from the subject and off
//     its face), and the fallbacks above.
//   - Edits (edit.go): the part of the input the output keeps is scaled to the backend's
//     size and back, and the input's own pixels are composited back outside the mask.
//   - Pool (pool.go, run.go, health.go): --engine-url is a list; each backend takes at
//     most --engine-concurrency requests, the others wait in line (first come, first
//     served) and the wait counts against the generation deadline; a backend that cannot
//     be reached is skipped (the request goes to the next) until a health ping says it
//     answers again; a 429 is sat out for its Retry-After while the deadline allows.
//     Prometheus: thumbforge_engine_requests_total{backend,outcome},
//     thumbforge_engine_request_duration_seconds{backend},
//     thumbforge_engine_slot_wait_seconds, thumbforge_engine_in_flight{backend},
//     thumbforge_engine_backend_up{backend}.
//   - Errors (engine.go): a refusal is GENERATION_REJECTED (422; v1
//     CONTENT_POLICY_VIOLATION), backends busy past the deadline GENERATION_TIMEOUT, any
//     other backend failure GENERATION_FAILED (500); the end of the generation deadline
//     is GENERATION_TIMEOUT (504) with the backend's job cancelled. The service charges
//     nothing for any of them.
package engines
