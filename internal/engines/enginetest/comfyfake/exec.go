package comfyfake

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // LoadImage reads what clients upload
	_ "image/png"
	"math/big"
	"path"
	"sort"
	"strings"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// Values flowing between nodes.
type (
	checkpoint   struct{ name string }
	conditioning struct{ text string }
	latent       struct {
		w, h  int
		pix   *image.RGBA // nil for an empty latent
		noise *image.Gray // noise mask at latent size; nil samples everywhere
	}
)

// errInterrupted is ComfyUI's InterruptProcessingException.
var errInterrupted = errors.New("interrupted")

// execError is a Python exception raised by a node while executing.
type execError struct{ typ, msg string }

func (e *execError) Error() string { return e.typ + ": " + e.msg }

// execution runs one queued prompt's good outputs.
type execution struct {
	f        *Fake
	item     *queueItem
	results  map[string][]any
	executed []string
	ui       map[string]any
	meta     map[string]any
	failedAt string // node that raised
}

func (e *execution) run() error {
	for _, o := range e.item.outputs {
		if _, err := e.node(o); err != nil {
			return err
		}
	}
	return nil
}

// node evaluates a node once, after its inputs.
func (e *execution) node(id string) ([]any, error) {
	if r, ok := e.results[id]; ok {
		return r, nil
	}
	n := e.item.graph.nodes[id]
	in := map[string]any{}
	for name, v := range e.item.values[id] {
		if link, ok := v.([]any); ok {
			src := link[0].(string)
			r, err := e.node(src)
			if err != nil {
				return nil, err
			}
			idx, _ := pyIndex(link[1], len(r))
			in[name] = r[idx]
			continue
		}
		in[name] = v
	}
	if e.f.interrupted() {
		e.failedAt = id
		return nil, errInterrupted
	}
	e.f.event(e.item, "executing", map[string]any{"node": id, "display_node": id, "prompt_id": e.item.id})
	class := n.classType.(string)
	out, err := e.call(id, class, in)
	if err != nil {
		e.failedAt = id
		return nil, err
	}
	e.results[id] = out
	e.executed = append(e.executed, id)
	return out, nil
}

func (e *execution) call(id, class string, in map[string]any) ([]any, error) {
	switch class {
	case "CheckpointLoaderSimple":
		c := checkpoint{name: in["ckpt_name"].(string)}
		return []any{c, c, c}, nil
	case "CLIPTextEncode":
		if _, err := arg[checkpoint](in, "clip"); err != nil {
			return nil, err
		}
		return []any{conditioning{text: in["text"].(string)}}, nil
	case "EmptyLatentImage":
		return []any{&latent{w: intArg(in, "width") / 8 * 8, h: intArg(in, "height") / 8 * 8}}, nil
	case "KSampler":
		return e.sample(id, in)
	case "VAEDecode":
		l, err := arg[*latent](in, "samples")
		if err != nil {
			return nil, err
		}
		if l.pix == nil {
			grey := image.NewRGBA(image.Rect(0, 0, l.w, l.h))
			draw.Draw(grey, grey.Rect, image.NewUniform(color.RGBA{128, 128, 128, 255}), image.Point{}, draw.Src)
			return []any{grey}, nil
		}
		return []any{l.pix}, nil
	case "VAEEncode":
		img, err := arg[*image.RGBA](in, "pixels")
		if err != nil {
			return nil, err
		}
		px := cropTo8(img)
		return []any{&latent{w: px.Rect.Dx(), h: px.Rect.Dy(), pix: px}}, nil
	case "VAEEncodeForInpaint":
		return encodeForInpaint(in)
	case "SetLatentNoiseMask":
		l, err := arg[*latent](in, "samples")
		if err != nil {
			return nil, err
		}
		m, err := arg[*image.Gray](in, "mask")
		if err != nil {
			return nil, err
		}
		c := *l
		c.noise = fakekit.Channel(m, 0, false, l.w, l.h)
		return []any{&c}, nil
	case "LoadImage":
		img, err := e.f.loadInput(in["image"].(string))
		if err != nil {
			return nil, err
		}
		b := img.Bounds()
		mask := fakekit.Channel(img, 3, true, b.Dx(), b.Dy())
		return []any{fakekit.ToRGBA(img), mask}, nil
	case "LoadImageMask":
		img, err := e.f.loadInput(in["image"].(string))
		if err != nil {
			return nil, err
		}
		ch := map[string]int{"red": 0, "green": 1, "blue": 2, "alpha": 3}[in["channel"].(string)]
		b := img.Bounds()
		return []any{fakekit.Channel(img, ch, ch == 3, b.Dx(), b.Dy())}, nil
	case "ImageScale":
		return imageScale(in)
	case "ImageCompositeMasked":
		return composite(in)
	case "SaveImage", "PreviewImage":
		return e.save(id, class, in)
	}
	return nil, &execError{"NotImplementedError", "the fake cannot run " + class}
}

// sample is KSampler: paint the model's picture, keep 1-denoise of the starting latent,
// leave pixels outside the noise mask alone; one step per "steps", checking interrupts.
func (e *execution) sample(id string, in map[string]any) ([]any, error) {
	if _, err := arg[checkpoint](in, "model"); err != nil {
		return nil, err
	}
	pos, err := arg[conditioning](in, "positive")
	if err != nil {
		return nil, err
	}
	if _, err := arg[conditioning](in, "negative"); err != nil {
		return nil, err
	}
	l, err := arg[*latent](in, "latent_image")
	if err != nil {
		return nil, err
	}
	if e.f.Take(Fail) {
		return nil, &execError{"RuntimeError", "CUDA error: out of memory (injected by the fake)"}
	}
	steps := intArg(in, "steps")
	for i := 1; i <= steps; i++ {
		if err := e.f.step(); err != nil {
			return nil, err
		}
		e.f.event(e.item, "progress", map[string]any{"value": i, "max": steps, "prompt_id": e.item.id, "node": id})
	}
	gen := fakekit.Scene(0, in["seed"].(*big.Int).String()+"\x00"+pos.text, l.w, l.h)
	out := &latent{w: l.w, h: l.h, pix: gen, noise: l.noise}
	if l.pix != nil {
		out.pix = fakekit.Blend(l.pix, gen, in["denoise"].(float64), l.noise)
	}
	return []any{out}, nil
}

// save stores the images as SaveImage / PreviewImage do and records the UI output.
func (e *execution) save(id, class string, in map[string]any) ([]any, error) {
	img, err := arg[*image.RGBA](in, "images")
	if err != nil {
		return nil, err
	}
	typ, prefix := "output", "ComfyUI"
	if class == "PreviewImage" {
		typ, prefix = "temp", "ComfyUI_temp_"+e.item.id[:5]
	} else if p, ok := in["filename_prefix"].(string); ok {
		prefix = p
	}
	sub, base := path.Split(path.Clean(prefix))
	sub = strings.TrimSuffix(sub, "/")
	if strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "..") {
		return nil, &execError{"Exception", "**** ERROR: Saving image outside the output folder is not allowed."}
	}
	name := e.f.storeOutput(typ, sub, base, fakekit.EncodePNG(img))
	images := []any{map[string]any{"filename": name, "subfolder": sub, "type": typ}}
	e.ui[id] = map[string]any{"images": images}
	e.meta[id] = map[string]any{"node_id": id, "display_node": id, "parent_node": nil, "real_node_id": id}
	e.f.event(e.item, "executed", map[string]any{"node": id, "display_node": id, "output": e.ui[id], "prompt_id": e.item.id})
	return []any{}, nil
}

// arg fetches an input of the wanted kind; a wrong kind is the AttributeError a node
// would raise on it.
func arg[T any](in map[string]any, name string) (T, error) {
	v, ok := in[name].(T)
	if !ok {
		var zero T
		return zero, &execError{"AttributeError", fmt.Sprintf("input %s: '%s' object is not what the node expects", name, goKind(in[name]))}
	}
	return v, nil
}

func goKind(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case *big.Int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	}
	return fmt.Sprintf("%T", v)
}

func intArg(in map[string]any, name string) int {
	n, _ := in[name].(*big.Int)
	if n == nil || !n.IsInt64() {
		return 0
	}
	return int(n.Int64())
}

// decodeImage decodes an uploaded file.
func decodeImage(b []byte) (image.Image, error) {
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, &execError{"PIL.UnidentifiedImageError", "cannot identify image file"}
	}
	return img, nil
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
