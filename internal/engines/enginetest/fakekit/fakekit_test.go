package fakekit

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

func TestSceneIsDeterministicAndFollowsThePrompt(t *testing.T) {
	a, b, c := Scene(1, "a cat", 96, 64), Scene(1, "a cat", 96, 64), Scene(1, "a dog", 96, 64)
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Error("same seed and prompt, different pixels")
	}
	if bytes.Equal(a.Pix, c.Pix) || bytes.Equal(a.Pix, Scene(2, "a cat", 96, 64).Pix) {
		t.Error("another prompt or seed gave the same pixels")
	}
	img, err := png.Decode(bytes.NewReader(EncodePNG(a)))
	if err != nil || img.Bounds() != image.Rect(0, 0, 96, 64) {
		t.Errorf("PNG round trip: %v %v", err, img.Bounds())
	}
}

func TestBlendHonoursStrengthAndMask(t *testing.T) {
	base, gen := Scene(1, "base", 32, 32), Scene(2, "gen", 32, 32)
	if !bytes.Equal(Blend(base, gen, 0, nil).Pix, base.Pix) || !bytes.Equal(Blend(base, gen, 1, nil).Pix, gen.Pix) {
		t.Error("strength 0 must keep base, 1 must give gen")
	}
	mask := image.NewGray(image.Rect(0, 0, 32, 32))
	for i := 0; i < 32*16; i++ {
		mask.Pix[i] = 255 // top half repaints
	}
	out := Blend(base, gen, 1, mask)
	if !bytes.Equal(out.Pix[:4*32*16], gen.Pix[:4*32*16]) || !bytes.Equal(out.Pix[4*32*16:], base.Pix[4*32*16:]) {
		t.Error("mask not honoured")
	}
}

func TestShots(t *testing.T) {
	var s Shots
	const f Fault = "x"
	if s.Take(f) {
		t.Error("unarmed fault taken")
	}
	s.Arm(f, 2)
	if !s.Take(f) || !s.Take(f) || s.Take(f) {
		t.Error("armed twice must fire exactly twice")
	}
	s.Arm(f, -1)
	for i := 0; i < 5; i++ {
		if !s.Take(f) {
			t.Fatal("armed for good stopped firing")
		}
	}
}
