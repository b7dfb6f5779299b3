package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// LimiterConfig tunes the cluster-wide limiter.
type LimiterConfig struct {
	// TTL is how long a lease outlives its last renewal: the time a crashed replica's
	// slots stay taken. 0 means 60 s.
	TTL time.Duration
	// Heartbeat is how often held leases are renewed; 0 means TTL/3.
	Heartbeat time.Duration
}

func (c *LimiterConfig) defaults() {
	if c.TTL == 0 {
		c.TTL = 60 * time.Second
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = c.TTL / 3
	}
}

// Validate checks the configuration after defaults apply.
func (c LimiterConfig) Validate() error {
	c.defaults()
	switch {
	case c.TTL < time.Second:
		return errors.New("limiter: TTL must be at least 1s")
	case c.Heartbeat <= 0 || c.Heartbeat >= c.TTL:
		return errors.New("limiter: heartbeat must be positive and shorter than the TTL")
	}
	return nil
}

// Limiter is a core.Limiter shared by every replica through the leases table: each slot
// in use is a lease row that expires unless its holder keeps renewing it.
type Limiter struct {
	db   *sql.DB
	cfg  LimiterConfig
	mu   sync.Mutex
	held map[uuid.UUID]struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var _ core.Limiter = (*Limiter)(nil)

// NewLimiter returns a limiter on db (a Store's DB()) and starts its heartbeat; Close
// stops it.
func NewLimiter(db *sql.DB, cfg LimiterConfig) (*Limiter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.defaults()
	l := &Limiter{db: db, cfg: cfg, held: make(map[uuid.UUID]struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
	go l.heartbeat()
	return l, nil
}

// Acquire takes a slot for key when fewer than limit unexpired leases exist. The
// advisory lock on the key makes count-then-insert atomic across replicas.
func (l *Limiter) Acquire(ctx context.Context, key string, limit int) (func(), bool, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, false, err
	}
	ok := false
	err = func() error {
		tx, err := l.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('thumbforge.lease.' || $1))`, key); err != nil {
			return err
		}
		// Expiry uses the database's clock, the one every replica shares.
		if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE key = $1 AND expires_at <= now()`, key); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM leases WHERE key = $1`, key).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return tx.Commit()
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO leases (id, key, expires_at)
			VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond')`, id, key, l.cfg.TTL.Milliseconds())
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		ok = true
		return nil
	}()
	if err != nil {
		return nil, false, fmt.Errorf("limiter: acquire: %w", err)
	}
	if !ok {
		return nil, false, nil
	}
	l.mu.Lock()
	l.held[id] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { l.release(id) }) }, true, nil
}

// release deletes the lease. It runs detached from the request's context (often done by
// now); if the delete fails the lease still expires after the TTL.
func (l *Limiter) release(id uuid.UUID) {
	l.mu.Lock()
	delete(l.held, id)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = l.db.ExecContext(ctx, `DELETE FROM leases WHERE id = $1`, id)
}

// heartbeat renews the held leases until Close.
func (l *Limiter) heartbeat() {
	defer close(l.done)
	tick := time.NewTicker(l.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			l.renew()
		}
	}
}

// renew extends the held leases that have not expired. An expired one is left alone:
// another replica may already count its slot as free. A failed renewal is simply retried
// on the next tick: a lease outlives several heartbeats.
func (l *Limiter) renew() {
	l.mu.Lock()
	ids := make([]string, 0, len(l.held))
	for id := range l.held {
		ids = append(ids, id.String())
	}
	l.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Heartbeat)
	defer cancel()
	_, _ = l.db.ExecContext(ctx, `UPDATE leases SET expires_at = now() + $2::bigint * interval '1 millisecond'
		WHERE id = ANY($1::uuid[]) AND expires_at > now()`, ids, l.cfg.TTL.Milliseconds())
}

// Close stops the heartbeat and gives back every lease still held.
func (l *Limiter) Close() error {
	l.once.Do(func() { close(l.stop) })
	<-l.done
	l.mu.Lock()
	ids := make([]uuid.UUID, 0, len(l.held))
	for id := range l.held {
		ids = append(ids, id)
	}
	l.mu.Unlock()
	for _, id := range ids {
		l.release(id)
	}
	return nil
}
