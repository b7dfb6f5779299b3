package api

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the service's Prometheus instruments, on their own registry.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	charged  *prometheus.CounterVec
	settled  *prometheus.CounterVec
	problems *prometheus.CounterVec
}

// NewMetrics registers the instruments (and Go runtime and process collectors).
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "thumbforge_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "thumbforge_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "thumbforge_http_in_flight", Help: "HTTP requests being served.",
		}),
		charged: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "thumbforge_credits_charged_total", Help: "Credits charged for successful work, by operation.",
		}, []string{"operation"}),
		settled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "thumbforge_holds_settled_total",
			Help: "Credit holds the reconciler settled because their owner was finished or gone, by action (charge, release, expire).",
		}, []string{"action"}),
		problems: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "thumbforge_background_errors_total",
			Help: "Failures outside a request's answer, by kind: sweep_delete (an expired output that could not be deleted, retried next sweep), reconcile, lease_renew and lease_release (PostgreSQL in-flight slots), titles_fallback (the titles API failed; the builtin answered).",
		}, []string{"kind"}),
	}
	m.Registry.MustRegister(m.requests, m.latency, m.inFlight, m.charged, m.settled, m.problems,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Charged counts credits charged for op; the service calls it on every settled charge.
func (m *Metrics) Charged(op string, amount int64) {
	m.charged.WithLabelValues(op).Add(float64(amount))
}

// Settled counts n holds the reconciler settled with action.
func (m *Metrics) Settled(action string, n int) {
	if n > 0 {
		m.settled.WithLabelValues(action).Add(float64(n))
	}
}

// Problem counts one failure of kind that no client sees (see the metric's help).
func (m *Metrics) Problem(kind string) {
	m.problems.WithLabelValues(kind).Inc()
}
