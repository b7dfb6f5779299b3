package storetest

import (
	"bytes"

	"thumbforge/internal/core"
)

// testAdminToken: no hash until one is set; a new one replaces the old.
func testAdminToken(e *env) {
	t := e.t
	_, err := e.s.AdminTokenHash(e.ctx)
	wantErr(t, err, core.ErrNotFound)
	first, second := core.HashKey("tfadm_first"), core.HashKey("tfadm_second")
	for _, want := range [][]byte{first, second} {
		must(t, e.s.SetAdminTokenHash(e.ctx, want))
		got, err := e.s.AdminTokenHash(e.ctx)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("AdminTokenHash = %x, want %x", got, want)
		}
	}
}
