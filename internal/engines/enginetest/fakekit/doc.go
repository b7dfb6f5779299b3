// Package fakekit holds what the engine protocol fakes share: deterministic pictures of any
// size (a stand-in for a diffusion model that still honours seed, prompt, denoise strength
// and masks, so tests can measure them), a log of every request received, and one-shot
// fault counters that tests arm.
package fakekit
