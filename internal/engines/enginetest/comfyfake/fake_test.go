package comfyfake

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

func queued(t *testing.T, base string, body map[string]any) string {
	t.Helper()
	var ok struct {
		PromptID string `json:"prompt_id"`
	}
	if code := call(t, "POST", base+"/prompt", body, &ok); code != 200 || ok.PromptID == "" {
		t.Fatalf("POST /prompt: %d", code)
	}
	return ok.PromptID
}

// TestTxt2ImgRunsThroughTheQueue: history is {} until the prompt ran, then holds the
// outputs, the status and the prompt tuple; /view serves a PNG at the latent size.
func TestTxt2ImgRunsThroughTheQueue(t *testing.T) {
	f, srv := Serve(t, Config{})
	f.Arm(Hang, 1)
	id := "3f8e2a1c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	if got := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil), "client_id": "c1", "prompt_id": id}); got != id {
		t.Fatalf("prompt_id %s, want ours %s", got, id)
	}
	var h map[string]any
	call(t, "GET", srv.URL+"/api/history/"+id, nil, &h)
	if len(h) != 0 {
		t.Fatalf("history while running = %v, want {}", h)
	}
	var q struct {
		Running [][]any `json:"queue_running"`
		Pending [][]any `json:"queue_pending"`
	}
	call(t, "GET", srv.URL+"/queue", nil, &q)
	if len(q.Running) != 1 || q.Running[0][1] != id {
		t.Fatalf("queue %+v", q)
	}
	// the hang ends only with an interrupt: a second prompt waits behind it
	id2 := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil), "client_id": "c1"})
	call(t, "GET", srv.URL+"/queue", nil, &q)
	if len(q.Pending) != 1 || q.Pending[0][1] != id2 {
		t.Fatalf("pending %+v", q.Pending)
	}
	call(t, "POST", srv.URL+"/interrupt", map[string]any{"prompt_id": "00000000-0000-4000-8000-000000000000"}, nil)
	call(t, "POST", srv.URL+"/interrupt", map[string]any{"prompt_id": id}, nil)
	e1, e2 := waitHistory(t, srv.URL, id), waitHistory(t, srv.URL, id2)
	if statusStr(e1) != "error" || !strings.Contains(messageTypes(e1), "execution_interrupted") {
		t.Errorf("interrupted prompt: %v", e1["status"])
	}
	if statusStr(e2) != "success" || messageTypes(e2) != "execution_start,execution_cached,execution_success" {
		t.Errorf("second prompt: %v", e2["status"])
	}
	if tuple := e2["prompt"].([]any); tuple[1] != id2 || tuple[3].(map[string]any)["client_id"] != "c1" {
		t.Errorf("history prompt tuple %v", tuple[:2])
	}
	if b := outputImage(t, srv.URL, e2).Bounds(); b.Dx() != 1344 || b.Dy() != 768 {
		t.Errorf("output %v, want 1344x768", b)
	}
	ints := f.Interrupts()
	if len(ints) != 2 || ints[0].Hit || !ints[1].Hit || ints[1].PromptID != id {
		t.Errorf("interrupts %+v: want a miss for the other id, a hit for ours", ints)
	}
}

// TestQueueDelete: a pending prompt removed with POST /queue {delete} never runs.
func TestQueueDelete(t *testing.T) {
	f, srv := Serve(t, Config{})
	f.Arm(Hang, 1)
	first := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil)})
	second := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil)})
	call(t, "POST", srv.URL+"/queue", map[string]any{"delete": []string{second}}, nil)
	if _, pending := f.Queue(); pending != 0 {
		t.Fatalf("pending %d after delete", pending)
	}
	call(t, "POST", srv.URL+"/interrupt", map[string]any{}, nil) // global
	waitHistory(t, srv.URL, first)
	time.Sleep(50 * time.Millisecond)
	if f.History(second) != nil {
		t.Error("a deleted prompt ran")
	}
	if d := f.Deleted(); len(d) != 1 || d[0] != second {
		t.Errorf("deleted %v", d)
	}
}

// TestImg2ImgAndInpaint: denoise keeps 1-denoise of the uploaded image, and an inpaint
// leaves pixels outside the mask as they were.
func TestImg2ImgAndInpaint(t *testing.T) {
	_, srv := Serve(t, Config{})
	ref := fakekit.Scene(7, "reference", 256, 128)
	if code, out := upload(t, srv.URL, "ref.png", fakekit.EncodePNG(ref), nil); code != 200 || out["name"] != "ref.png" {
		t.Fatalf("upload %d %v", code, out)
	}
	mask := image.NewRGBA(image.Rect(0, 0, 256, 128))
	for y := 0; y < 128; y++ {
		for x := 128; x < 256; x++ { // right half white: repaint there
			mask.Set(x, y, color.White)
		}
	}
	upload(t, srv.URL, "mask.png", fakekit.EncodePNG(mask), nil)
	run := func(denoise float64, inpaint bool) *image.RGBA {
		g := txt2img(t, map[string]map[string]any{"3": {"denoise": denoise, "latent_image": []any{"12", 0}}})
		delete(g, "5")
		g["10"] = map[string]any{"class_type": "LoadImage", "inputs": map[string]any{"image": "ref.png"}}
		g["12"] = map[string]any{"class_type": "VAEEncode", "inputs": map[string]any{"pixels": []any{"10", 0}, "vae": []any{"4", 2}}}
		if inpaint {
			g["11"] = map[string]any{"class_type": "LoadImageMask", "inputs": map[string]any{"image": "mask.png", "channel": "red"}}
			g["12"] = map[string]any{"class_type": "VAEEncodeForInpaint", "inputs": map[string]any{"pixels": []any{"10", 0}, "vae": []any{"4", 2}, "mask": []any{"11", 0}, "grow_mask_by": 0}}
		}
		entry := waitHistory(t, srv.URL, queued(t, srv.URL, map[string]any{"prompt": g}))
		if statusStr(entry) != "success" {
			t.Fatalf("status %v", entry["status"])
		}
		return fakekit.ToRGBA(outputImage(t, srv.URL, entry))
	}
	diff := func(a *image.RGBA, r image.Rectangle) float64 {
		var sum float64
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				for c := 0; c < 3; c++ {
					d := float64(a.Pix[a.PixOffset(x, y)+c]) - float64(ref.Pix[ref.PixOffset(x, y)+c])
					sum += d * d
				}
			}
		}
		return sum / float64(r.Dx()*r.Dy())
	}
	all := ref.Rect
	low, high := run(0.35, false), run(0.75, false)
	if !(diff(low, all) < diff(high, all)) || diff(low, all) == 0 {
		t.Errorf("denoise 0.35 differs by %.0f, 0.75 by %.0f: lower denoise must keep more", diff(low, all), diff(high, all))
	}
	in := run(1, true)
	if d := diff(in, image.Rect(0, 0, 128, 128)); d != 0 {
		t.Errorf("outside the mask changed by %.1f", d)
	}
	if d := diff(in, image.Rect(128, 0, 256, 128)); d == 0 {
		t.Error("inside the mask unchanged")
	}
}

// TestUploadNames: same name with other bytes is renamed, identical bytes are not stored
// twice, overwrite replaces.
func TestUploadNames(t *testing.T) {
	f, srv := Serve(t, Config{})
	a, b := []byte("\x89PNG-a"), []byte("\x89PNG-b")
	for _, tc := range []struct {
		data   []byte
		fields map[string]string
		want   string
	}{
		{a, nil, "x.png"},
		{a, nil, "x.png"},
		{b, nil, "x (1).png"},
		{b, map[string]string{"overwrite": "true"}, "x.png"},
		{a, map[string]string{"subfolder": "tf"}, "x.png"},
	} {
		code, out := upload(t, srv.URL, "x.png", tc.data, tc.fields)
		if code != 200 || out["name"] != tc.want || out["type"] != "input" {
			t.Errorf("upload %q %v: %d %v, want %s", tc.data, tc.fields, code, out, tc.want)
		}
	}
	if string(f.File("input", "", "x.png")) != string(b) || string(f.File("input", "tf", "x.png")) != string(a) {
		t.Error("stored bytes wrong")
	}
	if code, _ := upload(t, srv.URL, "x.png", a, map[string]string{"subfolder": "../etc"}); code != 400 {
		t.Errorf("traversal: %d, want 400", code)
	}
	for _, q := range []string{"filename=../x.png", "filename=x.png&type=bogus"} {
		if resp, _ := http.Get(srv.URL + "/view?" + q); resp.StatusCode != 400 {
			t.Errorf("view %s: %d, want 400", q, resp.StatusCode)
		}
	}
	if resp, _ := http.Get(srv.URL + "/view?filename=nope.png"); resp.StatusCode != 404 {
		t.Errorf("view missing: %d", resp.StatusCode)
	}
}

// TestFaults exercises the armed failures.
func TestFaults(t *testing.T) {
	f, srv := Serve(t, Config{})

	f.Arm(Busy, 1)
	resp, _ := http.Post(srv.URL+"/prompt", "application/json", strings.NewReader(`{"prompt":{}}`))
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("busy: %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	f.Arm(Fail, 1)
	e := waitHistory(t, srv.URL, queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil)}))
	msgs := e["status"].(map[string]any)["messages"].([]any)
	last := msgs[len(msgs)-1].([]any)
	if statusStr(e) != "error" || last[0] != "execution_error" || last[1].(map[string]any)["node_id"] != "3" {
		t.Errorf("fail: %v", e["status"])
	}

	f.Arm(Drop, 1)
	dropped := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil)})
	after := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil)})
	waitHistory(t, srv.URL, after)
	if f.History(dropped) != nil {
		t.Error("a dropped prompt reached history")
	}

	f.Arm(Lose, 1)
	body, _ := json.Marshal(map[string]any{"prompt": txt2img(t, nil), "prompt_id": "11111111-2222-4333-8444-555555555555"})
	if _, err := http.Post(srv.URL+"/prompt", "application/json", strings.NewReader(string(body))); err == nil {
		t.Error("lost answer: the request succeeded")
	}
	waitHistory(t, srv.URL, "11111111-2222-4333-8444-555555555555")

	f.Arm(Down, 1)
	if resp, _ := http.Get(srv.URL + "/system_stats"); resp.StatusCode != 502 {
		t.Errorf("down: %d", resp.StatusCode)
	}
	if resp, _ := http.Get(srv.URL + "/system_stats"); resp.StatusCode != 200 {
		t.Errorf("after down: %d", resp.StatusCode)
	}
}

// TestTokenAndOrigin: a configured token is required; an Origin of another host is 403.
func TestTokenAndOrigin(t *testing.T) {
	_, srv := Serve(t, Config{Token: "s3cret"})
	get := func(h map[string]string) int {
		req, _ := http.NewRequest("GET", srv.URL+"/system_stats", nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(nil); c != 401 {
		t.Errorf("no token: %d", c)
	}
	if c := get(map[string]string{"Authorization": "Bearer s3cret"}); c != 200 {
		t.Errorf("token: %d", c)
	}
	if c := get(map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://evil.example"}); c != 403 {
		t.Errorf("foreign origin: %d", c)
	}
}

// TestWebSocketEvents: the socket named by client_id receives the execution events.
func TestWebSocketEvents(t *testing.T) {
	_, srv := Serve(t, Config{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	key := make([]byte, 16)
	rand.Read(key)
	io.WriteString(conn, "GET /ws?clientId=c9 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "+base64.StdEncoding.EncodeToString(key)+"\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", err, resp)
	}
	next := func() map[string]any {
		var h [2]byte
		io.ReadFull(br, h[:])
		n := int(h[1])
		if n == 126 {
			var b [2]byte
			io.ReadFull(br, b[:])
			n = int(b[0])<<8 | int(b[1])
		}
		p := make([]byte, n)
		io.ReadFull(br, p)
		var m map[string]any
		json.Unmarshal(p, &m)
		return m
	}
	if m := next(); m["type"] != "status" || m["data"].(map[string]any)["sid"] != "c9" {
		t.Fatalf("first message %v", m)
	}
	id := queued(t, srv.URL, map[string]any{"prompt": txt2img(t, nil), "client_id": "c9"})
	var seen []string
	for len(seen) < 100 {
		m := next()
		if m["type"] == "status" {
			continue
		}
		seen = append(seen, m["type"].(string))
		if m["type"] == "executing" && m["data"].(map[string]any)["node"] == nil {
			break
		}
	}
	got := strings.Join(seen, ",")
	for _, want := range []string{"execution_start", "progress", "executed", "execution_success"} {
		if !strings.Contains(got, want) {
			t.Errorf("events %s lack %s", got, want)
		}
	}
	waitHistory(t, srv.URL, id)
}
