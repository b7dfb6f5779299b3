// Package comfyfake is a ComfyUI server for tests: it speaks ComfyUI's HTTP and WebSocket
// API (server.py, execution.py, main.py of Comfy-Org/ComfyUI 0.3.x) closely enough that a
// client which works against it works against the real server.
//
// What it does as ComfyUI does:
//   - POST /prompt validates the graph with ComfyUI's rules and error shapes: known
//     class_type (from object_info.json, a recorded subset of the core nodes), required
//     inputs present, literal values converted to INT/FLOAT/STRING/BOOLEAN, min/max and
//     enum lists respected, links [node id, output index] pointing at existing nodes and
//     outputs of the right type, LoadImage files that exist, at least one output node.
//     A prompt_id, when sent, must be a canonical lowercase UUID.
//   - one queue executes one prompt at a time; GET /history/{id} answers {} until the
//     prompt finished, then its outputs and status; GET /queue, POST /queue {delete|clear},
//     POST /interrupt (targeted with prompt_id, else global), POST /upload/image
//     (multipart, overwrite, "name (1).png" renames, identical bytes deduplicated),
//     GET /view, GET /system_stats, GET /object_info, GET /ws (progress events for the
//     socket whose clientId is the prompt's client_id). Every route also answers under
//     /api. A request with an Origin header naming another host is refused with 403.
//   - the graph is really executed by a small interpreter of the core nodes it knows, so
//     outputs are real PNGs at the latent size; KSampler paints a picture from its seed and
//     positive prompt (fakekit.Scene), keeps 1-denoise of an encoded image and leaves
//     pixels outside a noise mask alone, one step per "steps", checking for interrupts
//     between steps as ComfyUI does.
//
// What tests control (Fake methods): slowness per sampler step, hangs, 429 answers to
// POST /prompt, execution errors, prompts that vanish, answers lost after queueing, a
// socket that stalls, a Bearer token to require, a backend that is down. Everything
// received is recorded (Requests, Interrupts, Deleted, Prompts) for assertions.
package comfyfake
