package app

import (
	"context"

	"thumbforge/internal/core"
	"thumbforge/internal/jobs"
	"thumbforge/internal/webhooks"
)

// openWebhooks builds what announces events to accounts' webhooks and delivers them on the
// queue. An event's data is rendered by the API (what GET /v2/custom/{id} answers), which
// is built after the service: the renderer finds it when the first event comes, and
// events only come from requests and jobs, once the app has started.
func (a *App) openWebhooks(queue *jobs.Queue) (*webhooks.Webhooks, error) {
	w, err := webhooks.New(webhooks.Config{
		Store: a.Store, Queue: queue,
		Render:       func(ctx context.Context, e core.Event) (any, error) { return a.API.EventData(ctx, e) },
		AllowPrivate: a.cfg.AllowPrivateFetch, TLSConfig: a.cfg.FetchTLS, Logger: a.log, Now: a.cfg.Now,
	})
	if err != nil {
		return nil, err
	}
	queue.HandleWebhooks(w)
	return w, nil
}
