package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/store/sqlite"
)

// busyAccount is an account with perDay charges on each of days days ending now, and as
// many outputs in the last day, written straight into the tables (the API would take long).
func busyAccount(b *testing.B, days, perDay int) (*sqlite.Store, *core.Account, time.Time) {
	b.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "thumbforge.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	a := &core.Account{Name: "busy", APIAccess: true}
	if err := s.CreateAccount(ctx, a); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	ops := []string{"thumbnail.mdl_4_5", "thumbnail.mdl_3", "title", "edit"}
	for d := range days {
		for i := range perDay {
			at := now.Add(-time.Duration(d)*24*time.Hour - time.Duration(i)*time.Second)
			if _, err := tx.Exec(`INSERT INTO ledger (account_id, kind, delta, amount, ref, operation, created_at) VALUES (?, 'charge', 0, 13, 'r', ?, ?)`,
				a.ID.String(), ops[i%len(ops)], at.UnixMicro()); err != nil {
				b.Fatal(err)
			}
			if d == 0 {
				if _, err := tx.Exec(`INSERT INTO outputs (blob_key, account_id, expires_at, created_at, request_id, operation) VALUES (?, ?, ?, ?, ?, 'edit')`,
					fmt.Sprintf("outputs/x/%d.jpg", i), a.ID.String(), at.Add(24*time.Hour).UnixMicro(), at.UnixMicro(), fmt.Sprint(i)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return s, a, now
}

// BenchmarkUsage30Days: the usage chart's query over 30 days of 2,000 charges a day.
func BenchmarkUsage30Days(b *testing.B) {
	s, a, now := busyAccount(b, 30, 2000)
	from := now.Truncate(24*time.Hour).AddDate(0, 0, -29)
	b.ResetTimer()
	for b.Loop() {
		rows, err := s.Usage(context.Background(), a.ID, from, from.AddDate(0, 0, 30))
		if err != nil || len(rows) == 0 {
			b.Fatal(rows, err)
		}
	}
}

// BenchmarkOutputsPage: one page of 24 from 2,000 live outputs, deep in the list.
func BenchmarkOutputsPage(b *testing.B) {
	s, a, now := busyAccount(b, 1, 2000)
	after := core.PageAfter{Time: now.Add(-1000 * time.Second), Key: "outputs/x/1000.jpg"}
	b.ResetTimer()
	for b.Loop() {
		page, err := s.OutputsPage(context.Background(), a.ID, now, after, 24)
		if err != nil || len(page) != 24 {
			b.Fatal(len(page), err)
		}
	}
}
