package engines

import "github.com/prometheus/client_golang/prometheus"

// metrics are the pool's Prometheus instruments, labelled by backend (its URL without
// credentials or query).
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	wait     prometheus.Histogram
	inFlight *prometheus.GaugeVec
	up       *prometheus.GaugeVec
}

// Outcomes of a backend request, as the requests metric's outcome label.
const (
	outcomeOK        = "ok"
	outcomeTimeout   = "timeout"
	outcomeCancelled = "cancelled"
)

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "thumbforge_engine_requests_total",
			Help: "Requests sent to generative backends, by backend and outcome (ok, failed, unavailable, refused, busy, timeout, cancelled).",
		}, []string{"backend", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "thumbforge_engine_request_duration_seconds",
			Help:    "How long generative backends took to answer, by backend.",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300},
		}, []string{"backend"}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "thumbforge_engine_slot_wait_seconds",
			Help:    "How long requests waited for a free backend slot (counts against the generation deadline).",
			Buckets: []float64{.001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "thumbforge_engine_in_flight",
			Help: "Requests being served by each generative backend.",
		}, []string{"backend"}),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "thumbforge_engine_backend_up",
			Help: "1 when the backend answers its health check, 0 while the pool skips it.",
		}, []string{"backend"}),
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.wait, m.inFlight, m.up} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
