package blob

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
)

// ServeFiles serves signed links for the route `GET /files/{key...}`: 403 FORBIDDEN for a
// bad signature, 410 EXPIRED for an expired link, 404 NOT_FOUND for a missing file. It
// also works mounted on the "/files/" prefix without a {key...} wildcard.
func (s *FileStore) ServeFiles() http.Handler {
	return http.HandlerFunc(s.serveFile)
}

func (s *FileStore) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeFileError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Only GET and HEAD are allowed.")
		return
	}
	key := r.PathValue("key")
	if key == "" {
		key = strings.TrimPrefix(r.URL.Path, "/files/")
	}
	q := r.URL.Query()
	left, err := s.verify(key, q.Get("expires"), q.Get("sig"))
	switch {
	case errors.Is(err, ErrExpired):
		writeFileError(w, http.StatusGone, "EXPIRED", "This link has expired.")
		return
	case err != nil:
		writeFileError(w, http.StatusForbidden, "FORBIDDEN", "This link is not valid.")
		return
	}
	p, err := s.path(key)
	if err != nil {
		writeFileError(w, http.StatusNotFound, "NOT_FOUND", "File not found.")
		return
	}
	f, err := os.Open(p)
	if err != nil {
		writeFileError(w, http.StatusNotFound, "NOT_FOUND", "File not found.")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		writeFileError(w, http.StatusNotFound, "NOT_FOUND", "File not found.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentTypeFor(key))
	h.Set("X-Content-Type-Options", "nosniff")
	// A cache may keep the bytes no longer than the link itself is valid.
	h.Set("Cache-Control", "private, max-age="+strconv.FormatInt(int64(left.Seconds()), 10))
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// contentTypeFor maps the key's extension to a media type; the images this service
// writes are listed explicitly so the answer does not depend on the host's mime tables.
func contentTypeFor(key string) string {
	switch ext := strings.ToLower(path.Ext(key)); ext {
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".zip":
		return "application/zip"
	case ".json":
		return "application/json"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

type fileErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeFileError(w http.ResponseWriter, status int, code, message string) {
	var b fileErrorBody
	b.Error.Code, b.Error.Message = code, message
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(b)
}
