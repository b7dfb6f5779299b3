package comfyui

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The embedded defaults use core nodes only: txt2img, img2img and masked img2img.
//
//go:embed workflows/*.json
var embedded embed.FS

// Workflows are the graphs an adapter runs, by kind.
type Workflows map[Purpose]*Workflow

// LoadWorkflows returns the embedded workflows, replaced or completed by the files of dir
// (text.json, image.json, edit.json, persona.json, style.json, faceswap.json) when dir is
// set. Every problem of every file is reported at once; any other .json file in dir is an
// error too (a misnamed file would otherwise be silently ignored).
func LoadWorkflows(dir string) (Workflows, error) {
	ws := Workflows{}
	for _, k := range []Purpose{ForText, ForImage, ForEdit} {
		data, err := embedded.ReadFile("workflows/" + string(k) + ".json")
		if err != nil {
			return nil, err
		}
		w, err := ParseWorkflow(k, "embedded "+string(k)+".json", data)
		if err != nil {
			return nil, err
		}
		ws[k] = w
	}
	if dir == "" {
		return ws, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine workflows: %w", err)
	}
	var errs []error
	known := map[string]Purpose{}
	for _, k := range Purposes {
		known[string(k)+".json"] = k
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".json") {
			continue
		}
		k, ok := known[name]
		if !ok {
			errs = append(errs, fmt.Errorf("engine workflows: %s is not a workflow name (expected one of %s)", filepath.Join(dir, name), fileNames()))
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, fmt.Errorf("engine workflows: %w", err))
			continue
		}
		w, err := ParseWorkflow(k, filepath.Join(dir, name), data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ws[k] = w
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ws, nil
}

func fileNames() string {
	var names []string
	for _, k := range Purposes {
		names = append(names, string(k)+".json")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
