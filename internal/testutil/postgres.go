package testutil

import (
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// PostgresEnv names the variable holding the test PostgreSQL server's DSN.
const PostgresEnv = "THUMBFORGE_TEST_POSTGRES"

// PostgresDSN returns a DSN on a fresh schema of the test server, dropped when t ends. It
// skips t, saying why, when no server is configured.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL test skipped: set %s, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable", PostgresEnv)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := "tf_test_" + strings.ToLower(rand.Text()[:16])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	if !strings.Contains(dsn, "://") { // a key=value DSN
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
