package comfyfake

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// socket is one WebSocket client of /ws.
type socket struct {
	sid  string
	mu   sync.Mutex
	conn net.Conn
}

// send writes one JSON text frame; a broken socket is simply dropped later.
func (s *socket) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	writeFrame(s.conn, 0x1, b)
}

// writeFrame writes an unmasked server frame (RFC 6455 §5.2).
func writeFrame(w io.Writer, opcode byte, payload []byte) error {
	hdr := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, byte(n))
	case n < 1<<16:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// serveWS is GET /ws?clientId=: the socket first gets a status message with its sid (the
// clientId when given), then the execution events of prompts whose client_id is its sid.
func (f *Fake) serveWS(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || key == "" {
		http.Error(w, "websocket upgrade required", http.StatusBadRequest)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
	rw.Flush()
	sid := r.URL.Query().Get("clientId")
	if sid == "" {
		sid = strings.ReplaceAll(newUUID(), "-", "")
	}
	s := &socket{sid: sid, conn: conn}
	f.mu.Lock()
	f.sockets[s] = true
	remaining := len(f.pending)
	if f.running != nil {
		remaining++
	}
	f.mu.Unlock()
	s.send(map[string]any{"type": "status", "data": map[string]any{
		"status": map[string]any{"exec_info": map[string]any{"queue_remaining": remaining}}, "sid": sid}})
	gone := make(chan struct{})
	go func() {
		readFrames(rw.Reader, s)
		close(gone)
		f.mu.Lock()
		delete(f.sockets, s)
		f.mu.Unlock()
		conn.Close()
	}()
	go func() {
		select {
		case <-f.done:
			conn.Close()
		case <-gone:
		}
	}()
}

// readFrames reads client frames until the socket closes, answering pings and closes.
func readFrames(r *bufio.Reader, s *socket) {
	for {
		var h [2]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		opcode, n := h[0]&0x0f, uint64(h[1]&0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(r, mask[:]); err != nil {
				return
			}
		}
		if n > 1<<20 {
			return
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
		s.mu.Lock()
		switch opcode {
		case 0x8:
			writeFrame(s.conn, 0x8, payload)
			s.mu.Unlock()
			return
		case 0x9:
			writeFrame(s.conn, 0xA, payload)
		}
		s.mu.Unlock()
	}
}
