package comfyfake

import (
	"bytes"
	"encoding/json"
	"image"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// txt2img returns the reference graph with edits applied (node -> input -> value).
func txt2img(t *testing.T, edits map[string]map[string]any) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/txt2img.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for id, in := range edits {
		inputs := g[id].(map[string]any)["inputs"].(map[string]any)
		for k, v := range in {
			if v == nil {
				delete(inputs, k)
			} else {
				inputs[k] = v
			}
		}
	}
	return g
}

// call sends a JSON request and decodes the JSON answer (if any) into out.
func call(t *testing.T, method, url string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, b)
		}
	}
	return resp.StatusCode
}

// upload posts a file to /upload/image with the given form fields.
func upload(t *testing.T, base, name string, data []byte, fields map[string]string) (int, map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("image", name)
	fw.Write(data)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	mw.Close()
	resp, err := http.Post(base+"/upload/image", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// waitHistory polls /history/{id} until the prompt has an entry.
func waitHistory(t *testing.T, base, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var h map[string]map[string]any
		call(t, "GET", base+"/history/"+id, nil, &h)
		if e, ok := h[id]; ok {
			return e
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("prompt %s never reached history", id)
	return nil
}

// outputImage fetches the first image of a history entry through /view.
func outputImage(t *testing.T, base string, entry map[string]any) image.Image {
	t.Helper()
	for _, out := range entry["outputs"].(map[string]any) {
		img := out.(map[string]any)["images"].([]any)[0].(map[string]any)
		resp, err := http.Get(base + "/view?filename=" + img["filename"].(string) + "&subfolder=" + img["subfolder"].(string) + "&type=" + img["type"].(string))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("view: %d", resp.StatusCode)
		}
		decoded, _, err := image.Decode(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return decoded
	}
	t.Fatal("no outputs")
	return nil
}

func statusStr(entry map[string]any) string {
	return entry["status"].(map[string]any)["status_str"].(string)
}

func messageTypes(entry map[string]any) string {
	var out []string
	for _, m := range entry["status"].(map[string]any)["messages"].([]any) {
		out = append(out, m.([]any)[0].(string))
	}
	return strings.Join(out, ",")
}
