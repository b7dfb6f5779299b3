package comfyui

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// frame builds an unmasked server frame.
func frame(opcode byte, fin bool, payload string) []byte {
	b := opcode
	if fin {
		b |= 0x80
	}
	out := []byte{b}
	switch n := len(payload); {
	case n < 126:
		out = append(out, byte(n))
	default:
		out = append(out, 126, byte(n>>8), byte(n))
	}
	return append(out, payload...)
}

func TestReadEvents(t *testing.T) {
	var stream bytes.Buffer
	stream.Write(frame(0x1, true, `{"type":"status","data":{"status":{}}}`))
	stream.Write(frame(0x2, true, "\x00\x00\x00\x01\x00\x00\x00\x02binary preview, skipped"))
	stream.Write(frame(0x9, true, "ping"))
	stream.Write(frame(0x1, false, `{"type":"progress","data":{"value":3,`))
	stream.Write(frame(0x0, true, `"max":20,"prompt_id":"p1"}}`))
	stream.Write(frame(0x1, true, `{"type":"executing","data":{"node":null,"prompt_id":"p1"}}`))
	stream.Write(frame(0x8, true, ""))
	var got []event
	var pong bytes.Buffer
	err := readEvents(bufio.NewReader(&stream), &pong, func(e event) { got = append(got, e) })
	if err != io.EOF {
		t.Fatalf("err %v, want EOF at the close frame", err)
	}
	if len(got) != 3 || got[1].Type != "progress" || got[1].Data.Value != 3 || got[1].Data.Max != 20 || got[1].Data.PromptID != "p1" {
		t.Fatalf("events %+v", got)
	}
	if got[2].Data.Node != nil || got[2].Type != "executing" {
		t.Errorf("executing node:null read as %+v", got[2])
	}
	if p := pong.Bytes(); len(p) < 2 || p[0] != 0x8A || p[1]&0x80 == 0 {
		t.Errorf("no masked pong written: % x", p)
	}
}

// FuzzReadEvents: no byte stream from a server makes the reader panic.
func FuzzReadEvents(f *testing.F) {
	f.Add(frame(0x1, true, `{"type":"progress","data":{"value":1,"max":2}}`))
	f.Add(append(frame(0x1, false, `{"type":`), frame(0x0, true, `"x"}`)...))
	f.Add([]byte{0x81, 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		readEvents(bufio.NewReader(bytes.NewReader(data)), io.Discard, func(event) {})
	})
}
