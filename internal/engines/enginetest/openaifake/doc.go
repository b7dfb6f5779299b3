// Package openaifake is an OpenAI Images API server for tests: a client that works
// against it works against api.openai.com (and, in the "sdcpp" flavor, against
// stable-diffusion.cpp's sd-server).
//
// Every request to /v1/images/generations, /v1/images/edits and /v1/models is checked
// against openapi-images.json, the image and model paths of OpenAI's published OpenAPI
// document (github.com/openai/openai-openapi, openapi.json at commit f85dbe22, MIT
// licence in LICENSE-openai-openapi) with kin-openapi: JSON bodies by openapi3filter,
// multipart bodies decoded as the API reads them (repeated "image[]" parts are the
// "image" array, text fields typed by the schema) and checked against the same schema.
// The subset was cut from the document by keeping those three paths and every component
// they reference, transitively, unchanged. On top of the schema the fake enforces what
// the real API enforces beyond it: unknown fields refused, sizes per model (gpt-image-1
// 1024x1024, 1536x1024, 1024x1536; gpt-image-2 any WxH divisible by 16 within 1:3..3:1,
// 3840x2160 and a minimum pixel budget; dall-e-3 its three), quality per model,
// input_fidelity not on -mini or DALL-E, no edits on dall-e-3, images that decode, and a
// mask that is a PNG with an alpha channel and the first image's size.
//
// Answers are real PNGs at the requested size, painted from the prompt
// (fakekit.Scene): an edit starts from the first image (input_fidelity=high keeps more
// of it), repaints where the mask's alpha is 0 and, like the real models whose masks are
// guidance rather than a crop, also shifts pixels outside the mask a little; every image
// after the first appears in the picture as an inset, as references do. GPT image models
// answer b64_json; DALL-E models answer a URL served by the fake. Errors have OpenAI's
// body {"error":{"message","type","param","code"}}; a moderation fault answers the real
// 400 moderation_blocked body.
//
// Flavor "sdcpp" answers as sd-server does: any model name, any size, no quality or
// fidelity checks, masks read as grey levels (white = repaint), <sd_cpp_extra_args> read
// from the prompt (seed, strength), errors as {"error":"<text>"}, GET /v1/models listing
// sd-cpp-local.
//
// Tests arm faults (moderation, 429 with Retry-After, 500, a hang until the client goes
// away, a dead backend, an undecodable image), set a fixed delay, and read what was
// received, how many requests ran at once and how many were abandoned by their client.
package openaifake
