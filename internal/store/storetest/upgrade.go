package storetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
	"thumbforge/internal/store/migrate"
)

// RunOwnerBackfill checks the upgrade of a database from before holds had owners: db is
// migrated to version 1 only (from migrationsDir, under lock), given a training hold named
// by its record, a training hold whose record is gone and a request hold; open then
// opens the store, which applies the rest. The first must belong to its record, the other
// two to nobody (the reconciler releases those).
func RunOwnerBackfill(t *testing.T, db *sql.DB, migrationsDir string, lock migrate.Lock, tm func(time.Time) any, open func() core.Store) {
	t.Helper()
	ctx := context.Background()
	first, err := os.ReadFile(filepath.Join(migrationsDir, "0001_init.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate.Run(ctx, db, fstest.MapFS{"0001_init.sql": {Data: first}}, lock); err != nil {
		t.Fatal(err)
	}
	acct, model := uuid.New(), uuid.New()
	owned, orphan, request := uuid.New(), uuid.New(), uuid.New()
	now := tm(time.Now())
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO accounts (id, name, concurrency, balance, created_at) VALUES ($1, 'old', 1, 0, $2)`, []any{acct, now}},
		{`INSERT INTO custom_models (id, account_id, created_at, mode, name, status, stage, reservation_id)
			VALUES ($1, $2, $3, 'persona', 'Ann', 'completed', 'ready', $4)`, []any{model, acct, now, owned}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []struct {
		id uuid.UUID
		op string
	}{{owned, core.OpTraining}, {orphan, core.OpTraining}, {request, "edit"}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO reservations (id, account_id, amount, operation, state, created_at)
			VALUES ($1, $2, 38, $3, 'held', $4)`, r.id, acct, r.op, now); err != nil {
			t.Fatal(err)
		}
	}
	st := open()
	holds, err := st.HeldReservations(ctx, uuid.Nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[uuid.UUID]core.Owner{}
	for _, h := range holds {
		owners[h.ID] = h.Owner
	}
	if len(holds) != 3 || owners[owned] != (core.Owner{Kind: core.OwnerCustomModel, ID: model}) ||
		owners[orphan] != (core.Owner{}) || owners[request] != (core.Owner{}) {
		t.Fatalf("owners after the upgrade: %+v", owners)
	}
}
