package storetest

import (
	"database/sql"
	"sync"
	"testing"
)

// DBStore is a store that exposes its database, as both dialects' stores do.
type DBStore interface {
	DB() *sql.DB
	Close() error
}

// RunConcurrentOpen opens the same database from several goroutines at once, as replicas
// starting together do, and checks that the schema was migrated exactly once.
func RunConcurrentOpen(t *testing.T, open func() (DBStore, error)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			s, err := open()
			if err == nil {
				err = s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d migrations recorded, want 1", n)
	}
}
