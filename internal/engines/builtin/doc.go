// Package builtin is thumbforge's builtin image engine: a deterministic compositor that
// renders thumbnails from prompts and reference images, edits images by instruction and
// scores thumbnails, all in pure Go.
//
// Model tiers (see TIERS.md): mdl_2 restyles a reference only, honouring image_weight
// and ignoring the prompt (a text job on mdl_2 uses the prompt like mdl_3);
// mdl_3 adds a headline and a prompt-driven palette and motif; mdl_4 adds support image
// cards and arrows; mdl_4_5 renders Config.Candidates layouts at quarter size, keeps
// the best by the scorer (under the job's scoring deadline) and renders it at full size.
//
// Rendering is a list of small steps (background, reference, style, card, face, arrow,
// headline), each checking the context between steps. The generated background is
// drawn at half size and upscaled bilinearly when the first step draws over it.
package builtin
