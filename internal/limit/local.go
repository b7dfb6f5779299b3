// Package limit bounds the requests in flight per API key within one process.
package limit

import (
	"context"
	"sync"
)

// Local is an in-process core.Limiter: right for a single replica.
type Local struct {
	mu    sync.Mutex
	inUse map[string]int
}

// NewLocal returns an empty in-process limiter.
func NewLocal() *Local { return &Local{inUse: make(map[string]int)} }

// Acquire takes a slot for key when fewer than limit are in use.
func (l *Local) Acquire(_ context.Context, key string, limit int) (func(), bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inUse[key] >= limit {
		return nil, false, nil
	}
	l.inUse[key]++
	var once sync.Once
	return func() { once.Do(func() { l.release(key) }) }, true, nil
}

func (l *Local) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inUse[key]--; l.inUse[key] <= 0 {
		delete(l.inUse, key)
	}
}

// InUse reports the slots taken for key.
func (l *Local) InUse(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inUse[key]
}
