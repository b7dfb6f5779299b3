package cluster_test

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
	"thumbforge/internal/store/postgres"
)

// Settings of the training-rescue scenario.
const (
	// stageDelay slows each training stage on the replica to be killed, so the test
	// catches it mid-training (a style has at least three delayed stages).
	stageDelay = 5 * time.Second
	// rescueTimeout and rescueAfter are the surviving replica's job queue settings: short,
	// so the dead replica's job is rescued as soon as the survivor leads the queue.
	rescueTimeout = 4 * time.Second
	rescueAfter   = 5 * time.Second
)

// testTrainingRescued: a replica is killed with SIGKILL in the middle of a training; the
// job queue of another replica rescues the job and finishes it, charged exactly once.
//
// The killed replica must be the one running the job, so it runs alone when the training
// is created: the replicas left are stopped first. It is then the queue's leader, so the
// survivor first waits for its leadership to lapse (15 s lease), then rescues the job at
// once (it started more than rescueAfter earlier), and River's scheduler makes it
// available within 5 s.
func testTrainingRescued(t *testing.T, c *cluster, _ *images) {
	for _, r := range c.replicas {
		if r.alive() {
			stop(r)
		}
	}
	slow := c.spawn([]string{app.TrainingDelayEnv + "=" + stageDelay.String()}, "--job-timeout", "2m")
	c.waitReady(slow, time.Now().Add(30*time.Second))
	const credits = 1000
	acct, key := c.account("rescue", credits, 10)
	styleImgs := []string{dataURL(testJPEG(t, 96, 64, 20)), dataURL(testJPEG(t, 96, 64, 90)), dataURL(testJPEG(t, 96, 64, 170))}
	r := c.do("POST", slow.url(), "/v2/custom/style", key, map[string]any{"name": "Rescued style", "image_base64s": styleImgs})
	id := r.str("id")
	if r.Status != http.StatusOK || id == "" {
		t.Fatalf("create style: %d %s (err %v)", r.Status, r.Raw, r.Err)
	}
	view := func(base string) (string, float64) {
		r := c.do("GET", base, "/v2/custom/"+id, key, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s (err %v)", id, r.Status, r.Raw, r.Err)
		}
		p, _ := r.Body["progress"].(float64)
		return r.str("status"), p
	}
	waitFor(t, 30*time.Second, "the training to start on the slow replica", func() bool {
		s, p := view(slow.url())
		return s == "processing" && p > 0
	})

	survivor := c.spawn(nil, "--job-timeout", rescueTimeout.String(), "--job-rescue-after", rescueAfter.String())
	c.waitReady(survivor, time.Now().Add(30*time.Second))
	c.kill(c.indexOf(slow))
	killed := time.Now()
	if s, p := view(survivor.url()); s != "processing" || p <= 0 || p >= 100 {
		t.Fatalf("at the kill the record was %s at %v%%, want mid-training: raise stageDelay", s, p)
	} else {
		t.Logf("slow replica killed with the record processing at %v%%", p)
	}

	waitFor(t, 60*time.Second, "the survivor to finish the rescued training", func() bool {
		switch s, _ := view(survivor.url()); s {
		case "completed":
			return true
		case "processing":
			return false
		default:
			t.Fatalf("training ended %s", s)
			return false
		}
	})
	t.Logf("training completed by the survivor %v after the kill", time.Since(killed).Round(time.Millisecond))
	// It was River's stuck-job rescue: the dead replica's attempt, then the survivor's.
	var attempt int
	var errs string
	err := sqlDB(t, c.dsn).QueryRow(`SELECT attempt, array_to_string(errors, ' ') FROM river_job WHERE args->>'model_id' = $1`, id).Scan(&attempt, &errs)
	if err != nil {
		t.Fatalf("read the training job: %v", err)
	}
	if attempt != 2 || !strings.Contains(errs, "Stuck job rescued") {
		t.Fatalf("training job: attempt %d, errors %s; want a second attempt after a rescue", attempt, errs)
	}

	entries, balance := c.ledgerEntries(acct)
	var sum int64
	kinds := map[core.LedgerKind]int{}
	for _, e := range entries {
		sum += e.Delta
		if e.Operation == core.OpTraining || e.Kind == core.LedgerCharge || e.Kind == core.LedgerRelease {
			kinds[e.Kind]++
		}
	}
	if kinds[core.LedgerReserve] != 1 || kinds[core.LedgerCharge] != 1 || kinds[core.LedgerRelease] != 0 {
		t.Fatalf("ledger holds %d training holds, %d charges, %d releases; want one hold charged once: %+v",
			kinds[core.LedgerReserve], kinds[core.LedgerCharge], kinds[core.LedgerRelease], entries)
	}
	if sum != balance || balance != credits-priceTraining {
		t.Fatalf("balance %d, ledger sum %d, want both %d", balance, sum, credits-priceTraining)
	}
}

// ledgerEntries returns an account's ledger and balance, read from the store directly.
func (c *cluster) ledgerEntries(account string) ([]core.LedgerEntry, int64) {
	c.t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, c.dsn, postgres.Options{MaxConns: 2})
	if err != nil {
		c.t.Fatal(err)
	}
	defer st.Close()
	id := uuid.MustParse(account)
	rows, err := st.Ledger(ctx, id, 1_000_000)
	if err != nil {
		c.t.Fatal(err)
	}
	a, err := st.GetAccount(ctx, id)
	if err != nil {
		c.t.Fatal(err)
	}
	return rows, a.Balance
}

// sqlDB opens the cluster's database for a direct look, closed when t ends.
func sqlDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
