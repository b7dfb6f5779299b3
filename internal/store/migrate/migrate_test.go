package migrate_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"thumbforge/internal/store/migrate"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db")+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func versions(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestRunAppliesInOrderOnce(t *testing.T) {
	db := openDB(t)
	fsys := fstest.MapFS{
		// Numeric order, not text order: 10 renames the table 9 writes to.
		"10_rename.sql": {Data: []byte(`ALTER TABLE u RENAME TO w;`)},
		"9_fill.sql":    {Data: []byte(`INSERT INTO u (v) VALUES ('nine');`)},
		"0002_more.sql": {Data: []byte(`INSERT INTO t (v) VALUES ('two'); CREATE TABLE u (v TEXT);`)},
		"0001_init.sql": {Data: []byte(`CREATE TABLE t (v TEXT); INSERT INTO t (v) VALUES ('one');`)},
		"README.md":     {Data: []byte(`not a migration`)},
	}
	ctx := context.Background()
	calls := 0
	lock := func(context.Context, *sql.Tx) error { calls++; return nil }
	for range 2 { // the second run finds everything applied
		if err := migrate.Run(ctx, db, fsys, lock); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 8 {
		t.Fatalf("lock taken %d times, want once per migration per run (8)", calls)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("t has %d rows (%v), want 2: each migration ran once, in order", n, err)
	}
	if v := versions(t, db); len(v) != 4 || v[0] != 1 || v[1] != 2 || v[2] != 9 || v[3] != 10 {
		t.Fatalf("versions %v", v)
	}
}

func TestRunFailedMigrationRollsBack(t *testing.T) {
	db := openDB(t)
	fsys := fstest.MapFS{
		"0001_init.sql": {Data: []byte(`CREATE TABLE t (v TEXT);`)},
		"0002_bad.sql":  {Data: []byte(`INSERT INTO t (v) VALUES ('x'); INSERT INTO nowhere VALUES (1);`)},
	}
	if err := migrate.Run(context.Background(), db, fsys, nil); err == nil {
		t.Fatal("a failing migration reported success")
	}
	if v := versions(t, db); len(v) != 1 || v[0] != 1 {
		t.Fatalf("versions %v, want [1]", v)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("t has %d rows (%v): the failed migration was not rolled back", n, err)
	}
}

// TestRunRejectsBadNames: unnumbered files and two files of one version.
func TestRunRejectsBadNames(t *testing.T) {
	for _, names := range [][]string{{"init.sql"}, {"0000_zero.sql"}, {"x1_a.sql"}, {"0001_a.sql", "1_b.sql"}} {
		fsys := fstest.MapFS{}
		for _, n := range names {
			fsys[n] = &fstest.MapFile{Data: []byte(`SELECT 1;`)}
		}
		if err := migrate.Run(context.Background(), openDB(t), fsys, nil); err == nil {
			t.Errorf("%v accepted", names)
		}
	}
}
