package comfyui

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
)

// event is one JSON message of ComfyUI's /ws socket: {"type": ..., "data": {...}}.
type event struct {
	Type string `json:"type"`
	Data struct {
		PromptID string  `json:"prompt_id"`
		Value    int     `json:"value"`
		Max      int     `json:"max"`
		Node     *string `json:"node"`
	} `json:"data"`
}

// listen opens ComfyUI's WebSocket for clientID and calls fn for every JSON event until
// ctx ends or the socket breaks. It is for progress only: completion is always read
// from /history, since sockets are known to stall silently on long runs. The upgrade
// goes through the same HTTP transport as every other call, with the same auth header
// and, like every call, no Origin header (ComfyUI refuses foreign origins).
// ready is closed when the first message (ComfyUI's "status") arrives: the server sends
// it after it has registered the socket, so events of prompts queued from then on reach
// it (the 101 answer alone comes before the registration).
func listen(ctx context.Context, hc *http.Client, u *url.URL, header http.Header, ready chan<- struct{}, fn func(event)) error {
	var key [16]byte
	rand.Read(key[:])
	k := base64.StdEncoding.EncodeToString(key[:])
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	for name, v := range header {
		req.Header[name] = v
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", k)
	// a client without a timeout: the socket lives as long as the run (ctx bounds it)
	resp, err := (&http.Client{Transport: hc.Transport}).Do(req)
	if err != nil {
		return err
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if resp.StatusCode != http.StatusSwitchingProtocols || !ok {
		resp.Body.Close()
		return fmt.Errorf("websocket upgrade: HTTP %d", resp.StatusCode)
	}
	sum := sha1.Sum([]byte(k + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		rwc.Close()
		return errors.New("websocket upgrade: bad Sec-WebSocket-Accept")
	}
	stop := context.AfterFunc(ctx, func() {
		writeClientFrame(rwc, 0x8, []byte{0x03, 0xe8}) // 1000, normal closure
		rwc.Close()
	})
	defer stop()
	defer rwc.Close()
	var once sync.Once
	return readEvents(bufio.NewReader(rwc), rwc, func(ev event) {
		once.Do(func() { close(ready) })
		fn(ev)
	})
}

// maxTextFrame bounds a JSON message; binary frames (previews) are skipped unread.
const maxTextFrame = 16 << 20

// readEvents reads frames (RFC 6455 §5) until the socket closes.
func readEvents(r *bufio.Reader, w io.Writer, fn func(event)) error {
	var text []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return err
		}
		fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		masked := h[1]&0x80 != 0
		if masked {
			if _, err := io.ReadFull(r, mask[:]); err != nil {
				return err
			}
		}
		if opcode == 0x2 || (opcode == 0x0 && text == nil) || n > maxTextFrame {
			if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
				return err
			}
			continue
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case 0x8:
			return io.EOF
		case 0x9:
			writeClientFrame(w, 0xA, payload)
			continue
		case 0xA:
			continue
		}
		text = append(text, payload...)
		if len(text) > maxTextFrame {
			return errors.New("websocket message too large")
		}
		if !fin {
			continue
		}
		var ev event
		if json.Unmarshal(text, &ev) == nil {
			fn(ev)
		}
		text = nil
	}
}

// writeClientFrame writes one masked frame, as clients must.
func writeClientFrame(w io.Writer, opcode byte, payload []byte) error {
	if len(payload) > 125 {
		return errors.New("control frame too long")
	}
	var mask [4]byte
	rand.Read(mask[:])
	frame := append([]byte{0x80 | opcode, 0x80 | byte(len(payload))}, mask[:]...)
	for i, b := range payload {
		frame = append(frame, b^mask[i%4])
	}
	_, err := w.Write(frame)
	return err
}
