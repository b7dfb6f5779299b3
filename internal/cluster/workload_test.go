package cluster_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/store/postgres"
)

// Default prices (credits) of what the workload does.
const (
	priceText     = 16 // thumbnail mdl_3
	priceImage    = 20 // thumbnail mdl_2
	priceTitle    = 8
	priceTraining = 38
	workers       = 4
)

// load is the workload's running totals.
type load struct {
	spent   atomic.Int64 // credits of every successful paid request
	retried atomic.Int64
	done    sync.Map // op -> *atomic.Int64 successes
}

func (l *load) success(op string) {
	v, _ := l.done.LoadOrStore(op, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (l *load) count(op string) int64 {
	v, ok := l.done.Load(op)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// testWorkload sends thumbnails, titles, training, reads and deletes across the replicas,
// kills one with SIGKILL mid-run, and checks that every answer is right or retryable,
// every training job completes, the balance equals the ledger and no blob is orphaned.
func testWorkload(t *testing.T, c *cluster, img *images) {
	const credits = 1_000_000
	acct, key := c.account("workload", credits, 50)
	l := &load{}
	face, still := photo(t, "astronaut.jpg"), testJPEG(t, 480, 270, 90)

	// Training created before the kill: v2 style and persona (data URLs), v1 persona and
	// style (zip archives fetched by the replica).
	styleImgs := []string{dataURL(testJPEG(t, 96, 64, 0)), dataURL(testJPEG(t, 96, 64, 80)), dataURL(testJPEG(t, 96, 64, 160))}
	trained := []string{
		c.create(l, key, "/v2/custom/style", map[string]any{"name": "Before style", "image_base64s": styleImgs}),
		c.create(l, key, "/v2/custom/persona", map[string]any{"name": "Before persona", "image_base64s": []string{dataURL(face), dataURL(face), dataURL(face)}}),
		c.create(l, key, "/v1/persona", map[string]any{"name": "Zip persona", "training_data": img.add("/persona.zip", zipOf(t, "a.jpg", face, "b.jpg", still))}),
		c.create(l, key, "/v1/style", map[string]any{"name": "Zip style", "training_data": img.add("/style.zip", zipOf(t, "a.jpg", still, "b.jpg", testJPEG(t, 96, 64, 200)))}),
	}

	began := time.Now()
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c.step(l, key, (w+i)%4, still, trained[i%len(trained)])
			}
		})
	}
	defer halt()

	for _, id := range trained {
		c.awaitTrained(l, key, id)
	}
	// Kill a replica while thumbnails, titles and reads are in flight. Training is idle
	// now: a training cut short by a kill is KilledReplicaTrainingRescued's scenario.
	waitFor(t, 60*time.Second, "the workload to get going", func() bool {
		return l.count("text") >= 6 && l.count("image") >= 6 && l.count("title") >= 6
	})
	c.kill(0)
	killed := time.Now()
	t.Logf("replica 0 killed %v into the workload", killed.Sub(began).Round(time.Millisecond))

	// Training created after the kill runs on the survivors.
	after := []string{
		c.create(l, key, "/v2/custom/style", map[string]any{"name": "After style", "image_base64s": styleImgs}),
		c.create(l, key, "/v1/persona", map[string]any{"name": "After persona", "training_data": img.srv.URL + "/persona.zip"}),
	}
	for _, id := range after {
		c.awaitTrained(l, key, id)
	}
	base := l.count("text") + l.count("image") + l.count("title")
	waitFor(t, 60*time.Second, "more work after the kill", func() bool {
		return l.count("text")+l.count("image")+l.count("title") >= base+15
	})
	halt()

	// Deletes: the record and its blobs go; a second read is NOT_FOUND.
	for _, id := range []string{trained[0], after[0]} {
		r := c.retry(l, "DELETE", "/v2/custom/"+id, key, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("delete %s: %d %s", id, r.Status, r.Raw)
		}
		if r := c.retry(l, "GET", "/v2/custom/"+id, key, nil); r.Status != http.StatusNotFound {
			t.Fatalf("read after delete: %d %s", r.Status, r.Raw)
		}
	}
	t.Logf("work done: %d text, %d image, %d title, %d reads, 6 trainings, %d retryable answers",
		l.count("text"), l.count("image"), l.count("title"), l.count("read"), l.retried.Load())

	sum, bal := c.ledger(acct)
	if sum != bal {
		t.Fatalf("ledger sums to %d, balance is %d", sum, bal)
	}
	// A request cut short by the kill may hold its price (released by the hourly sweep),
	// or may have been charged though its answer was lost: at most one per worker.
	expected := credits - l.spent.Load()
	if gap := expected - bal; gap < 0 || gap > workers*priceImage {
		t.Fatalf("balance %d, successful work leaves %d: gap %d beyond the %d requests in flight at the kill", bal, expected, gap, workers)
	}
	c.checkNoOrphans(killed)
}

// step runs one operation of the workload and checks its answer.
func (c *cluster) step(l *load, key string, op int, still []byte, custom string) {
	switch op {
	case 0:
		r := c.do("POST", c.proxyURL, "/v2/thumbnail/text", key, map[string]any{"prompt": "Ten budget travel tips for Japan", "model": "mdl_3", "format": "16:9"})
		if c.answered(l, r, "text", priceText) {
			c.checkOutput(r.str("output"), 1280, 720)
		}
	case 1:
		r := c.do("POST", c.proxyURL, "/v2/thumbnail/image", key, map[string]any{"model": "mdl_2", "format": "1:1", "image_base64": dataURL(still)})
		if c.answered(l, r, "image", priceImage) {
			c.checkOutput(r.str("output"), 1080, 1080)
		}
	case 2:
		r := c.do("POST", c.proxyURL, "/v2/title/text", key, map[string]any{"prompt": "I rebuilt a vintage bicycle with scrap parts"})
		if c.answered(l, r, "title", priceTitle) {
			if outs, _ := r.Body["outputs"].([]any); len(outs) == 0 {
				c.t.Errorf("title answer without outputs: %s", r.Raw)
			}
		}
	default:
		r := c.do("GET", c.proxyURL, "/v2/custom/"+custom, key, nil)
		if c.answered(l, r, "read", 0) && r.str("id") != custom {
			c.t.Errorf("read %s answered %s", custom, r.Raw)
		}
	}
}

// answered classifies a response: true for a success (counted), false for a retryable
// answer; anything else fails the test.
func (c *cluster) answered(l *load, r response, op string, price int64) bool {
	if r.Status == http.StatusOK {
		l.spent.Add(price)
		l.success(op)
		return true
	}
	if r.retryable() {
		l.retried.Add(1)
		return false
	}
	c.t.Errorf("%s: not a success nor retryable: %d %s", op, r.Status, r.Raw)
	return false
}

// checkOutput fetches an output link (presigned, straight from the S3 server) and checks
// the JPEG's size.
func (c *cluster) checkOutput(link string, w, h int) {
	resp, err := c.client.Get(link)
	if err != nil {
		c.t.Errorf("output %s: %v", link, err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.t.Errorf("output %s: %d %.200s", link, resp.StatusCode, body)
		return
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(body))
	if err != nil || cfg.Width != w || cfg.Height != h {
		c.t.Errorf("output %s: %dx%d (%v), want %dx%d", link, cfg.Width, cfg.Height, err, w, h)
	}
}

// retry sends a request through the proxy until the answer is not retryable.
func (c *cluster) retry(l *load, method, path, key string, body any) response {
	for deadline := time.Now().Add(30 * time.Second); ; {
		r := c.do(method, c.proxyURL, path, key, body)
		if !r.retryable() || time.Now().After(deadline) {
			return r
		}
		l.retried.Add(1)
		time.Sleep(50 * time.Millisecond)
	}
}

// create creates a persona or style and returns its id; training is paid on completion.
func (c *cluster) create(l *load, key, path string, body map[string]any) string {
	c.t.Helper()
	r := c.retry(l, "POST", path, key, body)
	if r.Status != http.StatusOK || r.str("id") == "" {
		c.t.Fatalf("POST %s: %d %s", path, r.Status, r.Raw)
	}
	l.spent.Add(priceTraining)
	return r.str("id")
}

// awaitTrained polls the record (v2 view, any replica) until it is completed.
func (c *cluster) awaitTrained(l *load, key, id string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := c.retry(l, "GET", "/v2/custom/"+id, key, nil)
		switch s := r.str("status"); {
		case r.Status == http.StatusOK && s == "completed":
			return
		case r.Status != http.StatusOK || s != "processing":
			c.t.Fatalf("training %s: %d %s", id, r.Status, r.Raw)
		case time.Now().After(deadline):
			c.t.Fatalf("training %s not completed after 60s: %s", id, r.Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkNoOrphans lists the bucket on disk (versitygw's posix backend keeps each object
// as a file) and fails on any object that no output row and no persona or style owns.
//
// One window is tolerated and logged: core stores an output's blob before its row, so a
// replica killed between the two leaves an object no row names; such an object was
// written just before the kill.
func (c *cluster) checkNoOrphans(killed time.Time) {
	c.t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, c.dsn, postgres.Options{MaxConns: 2})
	if err != nil {
		c.t.Fatal(err)
	}
	defer st.Close()
	owned := map[string]bool{}
	rows, err := st.DB().QueryContext(ctx, `SELECT blob_key FROM outputs`)
	if err != nil {
		c.t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			c.t.Fatal(err)
		}
		owned[k] = true
	}
	rows.Close()
	accounts, err := st.ListAccounts(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, a := range accounts {
		models, err := st.ListCustomModels(ctx, a.ID)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, m := range models {
			for _, k := range core.RecordKeys(&m) {
				owned[k] = true
			}
		}
	}
	objects, outputs, custom := 0, 0, 0
	err = filepath.WalkDir(c.bucketDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != c.bucketDir { // versitygw's own temp and metadata
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(c.bucketDir, path)
		k := filepath.ToSlash(rel)
		objects++
		if strings.HasPrefix(k, "outputs/") {
			outputs++
		} else {
			custom++
		}
		if owned[k] {
			return nil
		}
		info, ierr := d.Info()
		if ierr == nil && strings.HasPrefix(k, "outputs/") && info.ModTime().Before(killed.Add(time.Second)) && info.ModTime().After(killed.Add(-5*time.Second)) {
			c.t.Logf("output %s written %v before the kill has no row (stored blob, then killed before its row)", k, killed.Sub(info.ModTime()))
			return nil
		}
		c.t.Errorf("orphaned object %s", k)
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
	if outputs == 0 || custom == 0 {
		c.t.Fatalf("bucket holds %d outputs and %d persona/style objects: the listing looks in the wrong place", outputs, custom)
	}
	c.t.Logf("bucket: %d objects (%d outputs, %d persona/style), none orphaned", objects, outputs, custom)
}
