package storetest

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// DBStore is a store that exposes its database, as both dialects' stores do.
type DBStore interface {
	DB() *sql.DB
	Close() error
}

// RunConcurrentOpen opens the same database from several goroutines at once, as replicas
// starting together do, and checks that the schema was migrated exactly once: every file
// of migrationsDir recorded, and nothing else.
func RunConcurrentOpen(t *testing.T, migrationsDir string, open func() (DBStore, error)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(migrationsDir, "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations in %s: %v", migrationsDir, err)
	}
	var want []int
	for _, f := range files {
		v, err := strconv.Atoi(strings.SplitN(filepath.Base(f), "_", 2)[0])
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want = append(want, v)
	}
	sort.Ints(want)
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
	rows, err := s.DB().Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("migrations recorded %v, want %v", got, want)
	}
}
