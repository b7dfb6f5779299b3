package jobs

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river/rivertype"
)

// recorder is a handler that fails the first failures calls per id, then succeeds.
type recorder struct {
	mu       sync.Mutex
	failures int
	calls    map[uuid.UUID]int
	lasts    map[uuid.UUID][]bool
	done     chan uuid.UUID
}

func newRecorder(failures int) *recorder {
	return &recorder{failures: failures, calls: map[uuid.UUID]int{}, lasts: map[uuid.UUID][]bool{}, done: make(chan uuid.UUID, 16)}
}

func (r *recorder) Train(ctx context.Context, id uuid.UUID, last bool) error {
	r.mu.Lock()
	r.calls[id]++
	n := r.calls[id]
	r.lasts[id] = append(r.lasts[id], last)
	r.mu.Unlock()
	if n <= r.failures {
		return errors.New("transient failure")
	}
	r.done <- id
	return nil
}

func testConfig() Config {
	return Config{
		RetryBase: 10 * time.Millisecond, RetryMax: 40 * time.Millisecond, MaxAttempts: 3,
		PollInterval: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func openTest(t *testing.T, path string, cfg Config) *Queue {
	t.Helper()
	q, err := OpenSQLite(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = q.Stop(ctx)
		_ = q.Close()
	})
	return q
}

// wait returns the next finished id, failing the test after a generous bound.
func wait(t *testing.T, r *recorder) uuid.UUID {
	t.Helper()
	select {
	case id := <-r.done:
		return id
	case <-time.After(20 * time.Second):
		t.Fatal("no job finished")
		return uuid.Nil
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	q := openTest(t, filepath.Join(t.TempDir(), "q.db"), testConfig())
	r := newRecorder(2)
	if err := q.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if err := q.EnqueueTraining(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, r); got != id {
		t.Fatalf("finished %v, want %v", got, id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls[id] != 3 {
		t.Fatalf("calls = %d, want 3 (two failures, one success)", r.calls[id])
	}
	if want := []bool{false, false, true}; !equalBools(r.lasts[id], want) {
		t.Fatalf("lastAttempt flags = %v, want %v", r.lasts[id], want)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDuplicateEnqueueRunsOnce(t *testing.T) {
	q := openTest(t, filepath.Join(t.TempDir(), "q.db"), testConfig())
	id := uuid.New()
	for range 3 {
		if err := q.EnqueueTraining(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	r := newRecorder(0)
	if err := q.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	wait(t, r)
	// A later enqueue of a finished job is skipped too.
	if err := q.EnqueueTraining(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	other := uuid.New()
	if err := q.EnqueueTraining(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, r); got != other {
		t.Fatalf("finished %v, want the other job %v", got, other)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls[id] != 1 {
		t.Fatalf("duplicate-enqueued job ran %d times", r.calls[id])
	}
}

// TestInterruptedJobResumes leaves a job in the running state, as a process killed mid-job
// does, and checks that the next open runs it.
func TestInterruptedJobResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.db")
	q := openTest(t, path, testConfig())
	id := uuid.New()
	if err := q.EnqueueTraining(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`UPDATE river_job SET state = ?, attempt = 1 WHERE kind = ?`, string(rivertype.JobStateRunning), trainingArgs{}.Kind())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("marked %d jobs running, want 1", n)
	}
	db.Close()

	q2 := openTest(t, path, testConfig())
	r := newRecorder(0)
	if err := q2.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, r); got != id {
		t.Fatalf("finished %v, want %v", got, id)
	}
}

func TestBackoffDoublesAndCaps(t *testing.T) {
	b := backoff{base: time.Second, max: 5 * time.Second}
	for _, tc := range []struct {
		attempt int
		want    time.Duration
	}{{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {4, 5 * time.Second}, {20, 5 * time.Second}} {
		if got := b.delay(tc.attempt); got != tc.want {
			t.Errorf("attempt %d: delay %v, want %v", tc.attempt, got, tc.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{}, true},
		{"retry max below base", Config{RetryBase: time.Minute, RetryMax: time.Second}, false},
		{"rescue after the timeout", Config{JobTimeout: 2 * time.Minute, RescueAfter: 3 * time.Minute}, true},
		{"rescue at the timeout", Config{JobTimeout: 2 * time.Minute, RescueAfter: 2 * time.Minute}, false},
		{"rescue before the timeout", Config{JobTimeout: 2 * time.Minute, RescueAfter: time.Minute}, false},
		{"rescue before the default timeout", Config{RescueAfter: time.Minute}, false},
	} {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestConfigRescueAfterDefault(t *testing.T) {
	for _, tc := range []struct {
		cfg                  Config
		timeout, rescueAfter time.Duration
	}{
		{Config{}, 5 * time.Minute, 6 * time.Minute},
		{Config{JobTimeout: 2 * time.Minute}, 2 * time.Minute, 3 * time.Minute},
		{Config{JobTimeout: time.Second, RescueAfter: 3 * time.Second}, time.Second, 3 * time.Second},
		{Config{RescueAfter: 10 * time.Minute}, 5 * time.Minute, 10 * time.Minute},
	} {
		got := tc.cfg.withDefaults()
		if got.JobTimeout != tc.timeout || got.RescueAfter != tc.rescueAfter {
			t.Errorf("%+v: timeout %v, rescue after %v; want %v, %v", tc.cfg, got.JobTimeout, got.RescueAfter, tc.timeout, tc.rescueAfter)
		}
	}
}
