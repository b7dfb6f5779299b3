// Package cluster_test runs thumbforge as a deployment does: several `thumbforge serve`
// processes on one PostgreSQL database and one S3-compatible bucket (versitygw on
// loopback), behind a round-robin reverse proxy, and checks what must hold across them.
package cluster_test

import (
	"net/http"
	"testing"
	"time"

	"thumbforge/internal/testutil"
)

// TestCluster starts 3 replicas once and runs the scenarios in order: the last three kill
// replicas with SIGKILL, the last one after stopping the others and starting its own.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL-backed replicas, an S3 server and a proxy")
	}
	began := time.Now()
	c := &cluster{t: t, client: &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 100},
	}}
	c.dsn = freshDatabase(t)
	c.blobs, c.bucketDir = startS3(t)
	c.bin = testutil.Thumbforge(t)
	t.Logf("setup (database, S3 server, build) took %v", time.Since(began).Round(time.Millisecond))
	c.startReplicas(3)
	c.startProxy()
	t.Logf("3 replicas ready after %v", time.Since(began).Round(time.Millisecond))
	img := newImages(t)

	steps := []struct {
		name string
		run  func(*testing.T, *cluster, *images)
	}{
		{"InFlightLimitAcrossReplicas", testInFlightLimit},
		{"CreditsRaceAcrossReplicas", testCreditsRace},
		{"ConcurrentSweeps", testConcurrentSweeps},
		{"WorkloadWithReplicaKilled", testWorkload},
		{"CrashedReplicaSlotsExpire", testLeaseExpiry},
		{"KilledReplicaTrainingRescued", testTrainingRescued},
	}
	for _, s := range steps {
		c.t = t // helpers report to the step running them
		ok := t.Run(s.name, func(t *testing.T) {
			c.t = t
			start := time.Now()
			s.run(t, c, img)
			t.Logf("took %v", time.Since(start).Round(time.Millisecond))
		})
		if !ok {
			break // later steps assume the earlier ones' state
		}
	}
	c.t = t
}

// testInFlightLimit: 30 concurrent requests on one key with limit 10, spread over the
// replicas and held in flight: exactly 10 admitted, 20 refused with 429.
func testInFlightLimit(t *testing.T, c *cluster, img *images) {
	_, key := c.account("limit", 100000, 10)
	g := img.gate("limit", testJPEG(t, 320, 180, 10))
	results := make(chan response, 30)
	for i := range 30 {
		go func() {
			results <- c.do("POST", c.proxyURL, "/v1/recreate", key,
				map[string]any{"image_url": img.blockURL("limit", i), "model": "mdl-3"})
		}()
	}
	// Admitted requests wait at the image server; refused ones answer at once.
	for refused := 0; refused < 20; refused++ {
		select {
		case r := <-results:
			if r.Status != http.StatusTooManyRequests || r.code() != "CONCURRENT_LIMIT_EXCEEDED" {
				t.Fatalf("request answered while 10 are held: %d %s (err %v)", r.Status, r.Raw, r.Err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d requests refused after 30s; %d held", refused, g.count())
		}
	}
	waitFor(t, 10*time.Second, "10 requests held at the image server", func() bool { return g.count() == 10 })
	g.open()
	backends := map[string]bool{}
	for range 10 {
		r := <-results
		if r.Status != http.StatusOK || r.str("output") == "" {
			t.Fatalf("admitted request: %d %s (err %v)", r.Status, r.Raw, r.Err)
		}
		backends[r.Backend] = true
	}
	if g.count() != 10 {
		t.Fatalf("%d requests reached the image server, want exactly 10", g.count())
	}
	if len(backends) < 2 {
		t.Fatalf("admitted requests were all served by backend %v: the limit was not tested across replicas", backends)
	}
}

// testCreditsRace: 50 concurrent paid requests over the replicas on an account holding
// credits for 10: exactly 10 succeed, the balance ends at 0 and equals the ledger's sum.
func testCreditsRace(t *testing.T, c *cluster, _ *images) {
	const price = 8 // title
	acct, key := c.account("race", 10*price, 100)
	rs := parallel(50, func(i int) response {
		return c.do("POST", c.proxyURL, "/v2/title/text", key, map[string]any{"prompt": "Racing for the last credits across replicas"})
	})
	ok, backends := 0, map[string]bool{}
	for _, r := range rs {
		switch {
		case r.Status == http.StatusOK:
			ok++
			backends[r.Backend] = true
		case r.Status == http.StatusPaymentRequired && r.code() == "INSUFFICIENT_CREDITS":
		default:
			t.Fatalf("unexpected answer %d %s (err %v)", r.Status, r.Raw, r.Err)
		}
	}
	if ok != 10 {
		t.Fatalf("%d requests succeeded, want exactly 10", ok)
	}
	if len(backends) < 2 {
		t.Fatalf("successes all on backend %v", backends)
	}
	if b := c.balance(acct); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
	if sum, bal := c.ledger(acct); sum != bal {
		t.Fatalf("ledger sums to %d, balance is %d", sum, bal)
	}
}

// testLeaseExpiry: a replica holding every slot of a key is killed; the slots stay taken
// until its leases expire, then the other replicas admit requests again.
func testLeaseExpiry(t *testing.T, c *cluster, img *images) {
	holder, other := c.aliveReplicas()
	_, key := c.account("lease", 100000, 3)
	g := img.gate("lease", testJPEG(t, 320, 180, 30))
	for i := range 3 {
		go c.do("POST", holder.url(), "/v1/recreate", key, map[string]any{"image_url": img.blockURL("lease", i), "model": "mdl-3"})
	}
	waitFor(t, 15*time.Second, "3 requests held on one replica", func() bool { return g.count() == 3 })
	title := map[string]any{"prompt": "Are the slots free again"}
	if r := c.do("POST", other.url(), "/v2/title/text", key, title); r.Status != http.StatusTooManyRequests {
		t.Fatalf("with 3 slots held elsewhere: %d %s, want 429", r.Status, r.Raw)
	}
	c.kill(c.indexOf(holder))
	killed := time.Now()
	for {
		r := c.do("POST", other.url(), "/v2/title/text", key, title)
		since := time.Since(killed)
		if r.Status == http.StatusOK {
			// Leases are renewed every TTL/3, so none lapses much sooner than 2/3 TTL after
			// the kill (a late heartbeat can cost one period): a success within TTL/3 means
			// something other than expiry freed the slots.
			if since < leaseTTL/3 {
				t.Fatalf("slots free %v after the kill, before any lease could expire (TTL %v)", since, leaseTTL)
			}
			t.Logf("slots free again %v after SIGKILL (lease TTL %v)", since.Round(time.Millisecond), leaseTTL)
			return
		}
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("while waiting for the leases: %d %s", r.Status, r.Raw)
		}
		if since > leaseTTL+10*time.Second {
			t.Fatalf("slots still taken %v after the holder was killed (lease TTL %v)", since, leaseTTL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// aliveReplicas returns two replicas still running.
func (c *cluster) aliveReplicas() (*replica, *replica) {
	c.t.Helper()
	var alive []*replica
	for _, r := range c.replicas {
		if r.alive() {
			alive = append(alive, r)
		}
	}
	if len(alive) < 2 {
		c.t.Fatalf("%d replicas alive, need 2", len(alive))
	}
	return alive[0], alive[1]
}

func (c *cluster) indexOf(r *replica) int {
	for i, x := range c.replicas {
		if x == r {
			return i
		}
	}
	return -1
}

// ledger returns the sum of an account's ledger movements and its balance, read from the
// store directly.
func (c *cluster) ledger(account string) (sum, balance int64) {
	c.t.Helper()
	rows, balance := c.ledgerEntries(account)
	for _, l := range rows {
		sum += l.Delta
	}
	return sum, balance
}

// waitFor polls cond until it holds, failing after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
