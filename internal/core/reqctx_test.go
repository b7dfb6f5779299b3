package core

import (
	"context"
	"testing"
)

func TestReportProgress(t *testing.T) {
	ReportProgress(context.Background(), 50) // no observer: nothing happens
	var got []int
	ctx := WithProgress(context.Background(), func(p int) { got = append(got, p) })
	for _, p := range []int{-5, 0, 42, 100, 250} {
		ReportProgress(ctx, p)
	}
	want := []int{0, 0, 42, 100, 100}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
