package jobs

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// workerEnv, when set to "sqlite:PATH" or "postgres:DSN", makes the test binary a worker
// process that takes one job and hangs in it until killed: the dying replica of the
// rescue tests.
const workerEnv = "THUMBFORGE_JOBS_TEST_WORKER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(workerEnv); spec != "" {
		os.Exit(runHangingWorker(spec))
	}
	os.Exit(m.Run())
}

// hanging is a handler that reports the job it took on stdout and never finishes it.
type hanging struct{}

func (hanging) Train(ctx context.Context, id uuid.UUID, _ bool) error {
	fmt.Printf("working %s\n", id)
	<-ctx.Done()
	return ctx.Err()
}

// runHangingWorker opens the queue named by spec and works it until killed.
func runHangingWorker(spec string) int {
	ctx := context.Background()
	// A long timeout: the job must still be running when the parent kills this process.
	cfg := Config{JobTimeout: 5 * time.Minute, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	kind, target, _ := strings.Cut(spec, ":")
	var q *Queue
	var err error
	switch kind {
	case "sqlite":
		q, err = OpenSQLite(ctx, target, cfg)
	case "postgres":
		var pool *pgxpool.Pool
		if pool, err = pgxpool.New(ctx, target); err == nil {
			q, err = OpenPostgres(ctx, pool, cfg)
		}
	default:
		err = fmt.Errorf("unknown worker spec %q", spec)
	}
	if err == nil {
		err = q.Start(ctx, hanging{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {} // killed by the parent test
}

// rescueConfig is the rescuing client's: a short deadline and rescue delay.
func rescueConfig() Config {
	cfg := testConfig()
	cfg.JobTimeout = 500 * time.Millisecond
	cfg.RescueAfter = time.Second
	return cfg
}

// testDeadWorkerRescued enqueues a job on q (not started), lets a worker process take it
// and kills that process with SIGKILL mid-job, then starts q: q must be elected leader
// once the dead process's leadership expires, rescue the job (RescueAfter), and run it.
// attempts reads the job's attempt count and errors from the database.
func testDeadWorkerRescued(t *testing.T, q *Queue, spec string, attempts func(uuid.UUID) (int, string)) {
	id := uuid.New()
	if err := q.EnqueueTraining(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), workerEnv+"="+spec)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, exited := make(chan string, 1), make(chan struct{})
	go func() {
		br := bufio.NewReader(stdout)
		s, _ := br.ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, br)
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	select {
	case l := <-line:
		if l != "working "+id.String() {
			t.Fatalf("worker printed %q, want it working %s (stderr: %s)", l, id, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("worker took no job (stderr: %s)", stderr.String())
	}
	r := newRecorder(0)
	if err := q.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	select {
	case got := <-r.done:
		if got != id {
			t.Fatalf("finished %v, want %v", got, id)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the dead worker's job was not rescued within 60s")
	}
	t.Logf("job rescued and finished %v after the worker was killed", time.Since(killed).Round(time.Millisecond))
	r.mu.Lock()
	calls, lasts := r.calls[id], r.lasts[id]
	r.mu.Unlock()
	if calls != 1 || lasts[0] {
		t.Fatalf("rescuing client ran the job %d times (last-attempt flags %v), want once, not the last", calls, lasts)
	}
	if n, errs := attempts(id); n != 2 || !strings.Contains(errs, "Stuck job rescued") {
		t.Fatalf("job row: attempt %d, errors %s; want attempt 2 after a rescue", n, errs)
	}
}

func TestDeadWorkerRescuedSQLite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.db")
	q := openTest(t, path, rescueConfig())
	testDeadWorkerRescued(t, q, "sqlite:"+path, func(id uuid.UUID) (int, string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		var errs string
		if err := db.QueryRow(`SELECT attempt, CAST(errors AS TEXT) FROM river_job WHERE kind = ?`, trainingArgs{}.Kind()).Scan(&n, &errs); err != nil {
			t.Fatal(err)
		}
		return n, errs
	})
}

func TestDeadWorkerRescuedPostgres(t *testing.T) {
	t.Parallel()
	pool, dsn := pgPool(t)
	q, err := OpenPostgres(context.Background(), pool, rescueConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	testDeadWorkerRescued(t, q, "postgres:"+dsn, func(id uuid.UUID) (int, string) {
		var n int
		var errs string
		err := pool.QueryRow(context.Background(), `SELECT attempt, array_to_string(errors, ',') FROM river_job WHERE kind = $1`, trainingArgs{}.Kind()).Scan(&n, &errs)
		if err != nil {
			t.Fatal(err)
		}
		return n, errs
	})
}
