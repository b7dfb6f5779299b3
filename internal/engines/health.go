package engines

import (
	"context"
	"sync"
	"time"
)

// pingAll pings the pool's backends at once (only the unhealthy ones when onlySick)
// and records the results.
func (p *pool) pingAll(ctx context.Context, onlySick bool, timeout time.Duration) {
	p.mu.Lock()
	var ms []*member
	for _, m := range p.members {
		if !onlySick || !m.healthy {
			ms = append(ms, m)
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if err := m.backend.Ping(pctx); err != nil {
				if ctx.Err() == nil { // a ping cut short by its caller says nothing
					e, _ := classOf(err)
					p.setHealthIfChanged(m, false, publicReason(e))
				}
				return
			}
			p.setHealthIfChanged(m, true, "")
		}()
	}
	wg.Wait()
}

// watch pings the unhealthy backends every interval until stop is called, so a backend
// that answers again rejoins the pool.
func (p *pool) watch(interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.pingAll(ctx, true, min(interval, 5*time.Second))
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
