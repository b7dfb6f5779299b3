package comfyfake

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"image"
	"io"
	"net/http"
	"path"
	"strings"
)

// uploadImage is POST /upload/image: a multipart "image" file, optional "type" (input,
// temp, output), "subfolder" and "overwrite". Without overwrite a different file of the
// same name is stored as "name (1).ext"; identical bytes are not stored twice.
func (f *Fake) uploadImage(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	file, hdr, err := r.FormFile("image")
	if err != nil || hdr.Filename == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	data, err := io.ReadAll(file)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	typ := r.FormValue("type")
	if typ == "" {
		typ = "input"
	}
	if typ != "input" && typ != "temp" && typ != "output" {
		http.Error(w, "500 Internal Server Error\n\nServer got itself in trouble", http.StatusInternalServerError)
		return
	}
	sub := r.FormValue("subfolder")
	name := hdr.Filename
	if strings.Contains(sub+"/"+name, "..") || strings.HasPrefix(sub, "/") || strings.Contains(name, "/") {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	overwrite := r.FormValue("overwrite")
	f.mu.Lock()
	defer f.mu.Unlock()
	if overwrite != "true" && overwrite != "1" {
		ext := path.Ext(name)
		stem := strings.TrimSuffix(name, ext)
		for i := 1; ; i++ {
			old, exists := f.files[fileKey(typ, sub, name)]
			if !exists || bytes.Equal(old, data) {
				break
			}
			name = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
	}
	f.files[fileKey(typ, sub, name)] = data
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "subfolder": sub, "type": typ})
}

// view is GET /view?filename=&subfolder=&type=: the raw bytes of a stored file.
func (f *Fake) view(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !q.Has("filename") {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	name, typ := annotated(q.Get("filename"))
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if typ == "" {
		typ = q.Get("type")
		if typ == "" {
			typ = "output"
		}
	}
	if typ != "input" && typ != "temp" && typ != "output" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	sub := q.Get("subfolder")
	if strings.Contains(sub, "..") || strings.HasPrefix(sub, "/") {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	data := f.File(typ, sub, path.Base(name))
	if data == nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Disposition", `filename="`+path.Base(name)+`"`)
	w.Write(data)
}

// annotated splits "name [output]" as folder_paths.annotated_filepath does.
func annotated(s string) (name, typ string) {
	for _, t := range []string{"input", "output", "temp"} {
		if n, ok := strings.CutSuffix(s, " ["+t+"]"); ok {
			return n, t
		}
	}
	return s, ""
}

// inputExists is LoadImage's VALIDATE_INPUTS: the named file exists.
func (f *Fake) inputExists(ref string) bool {
	typ, sub, name := f.inputKey(ref)
	return f.File(typ, sub, name) != nil
}

func (f *Fake) inputKey(ref string) (typ, sub, name string) {
	n, t := annotated(ref)
	if t == "" {
		t = "input"
	}
	sub, name = path.Split(n)
	return t, strings.TrimSuffix(sub, "/"), name
}

// loadInput decodes a file a LoadImage node names.
func (f *Fake) loadInput(ref string) (image.Image, error) {
	data := f.File(f.inputKey(ref))
	if data == nil {
		return nil, &execError{"FileNotFoundError", "[Errno 2] No such file or directory: '" + ref + "'"}
	}
	return decodeImage(data)
}

// storeOutput saves an image as prefix_NNNNN_.png with the next counter for the prefix.
func (f *Fake) storeOutput(typ, sub, prefix string, data []byte) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := typ + "/" + sub + "/" + prefix
	f.counters[key]++
	name := fmt.Sprintf("%s_%05d_.png", prefix, f.counters[key])
	f.files[fileKey(typ, sub, name)] = data
	return name
}

// newUUID returns a random canonical lowercase UUID (version 4).
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
