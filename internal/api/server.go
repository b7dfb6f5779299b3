// Package api is thumbforge's HTTP interface: one routes table, the middleware every
// request passes, and the version 1 and version 2 handlers, each rendering its own errors.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"thumbforge/internal/apidocs"
	"thumbforge/internal/core"
	"thumbforge/internal/memory"
)

// Config wires the HTTP layer.
type Config struct {
	Service *core.Service
	Limiter core.Limiter
	Logger  *slog.Logger
	Metrics *Metrics
	// Files serves signed output links (GET /files/...) when blobs are local files.
	Files http.Handler
	// Ready reports whether the service can take traffic (store and blobs reachable).
	Ready func(ctx context.Context) error
	// ReadyDetails, when set, adds its keys to /readyz's body (the engine's backends).
	ReadyDetails func(ctx context.Context) map[string]any
	// MaintenanceTTL is how long the maintenance switch is cached; 0 asks every time.
	MaintenanceTTL time.Duration
	// Pages, when set, is the web console (internal/console).
	Pages Pages
	// Budget, when set, is the process's memory budget: request bodies reserve from it.
	Budget *memory.Budget
	// MaxInFlight caps the API requests in flight in this process, over every key
	// (0: no cap); beyond it 429 TOO_MANY_REQUESTS.
	MaxInFlight int
	// LimitScope says what the per-key in-flight limit counts: LimitPerKey (default) or
	// LimitPerAccount (every key of an account shares the account's limit).
	LimitScope string
	// IdempotencyLease is how long a keyed request may run before a repeat takes its key
	// over (its process is taken for dead); 0 means DefaultIdempotencyLease.
	IdempotencyLease time.Duration
}

// DefaultIdempotencyLease bounds a keyed request's claim when the configuration does not.
const DefaultIdempotencyLease = 10 * time.Minute

// Limit scopes of Config.LimitScope.
const (
	LimitPerKey     = "key"
	LimitPerAccount = "account"
)

// Pages is a set of web pages served beside the API, on the patterns it names.
type Pages interface {
	http.Handler
	Patterns() []string
}

// Server is the HTTP handler of the API.
type Server struct {
	svc     *core.Service
	store   core.Store
	limiter core.Limiter
	log     *slog.Logger
	metrics *Metrics
	files   http.Handler
	ready   func(ctx context.Context) error
	details func(ctx context.Context) map[string]any
	mcache  maintenanceCache
	pages   Pages
	openapi *openAPIDocs
	docs    *apidocs.Handler
	budget  *memory.Budget
	// inFlight counts API requests in flight against maxInFlight.
	inFlight    atomic.Int64
	maxInFlight int64
	perAccount  bool
	// idemLease: see Config.IdempotencyLease.
	idemLease time.Duration
	handler   http.Handler
	// documented and undocumented are the mux's patterns as registered: the routes the
	// OpenAPI document describes, and the rest (pages, assets, catch-alls).
	documented, undocumented []string
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	if cfg.Service == nil || cfg.Limiter == nil {
		return nil, errors.New("api: service and limiter are required")
	}
	switch cfg.LimitScope {
	case "", LimitPerKey, LimitPerAccount:
	default:
		return nil, fmt.Errorf("api: limit scope %q: want %s or %s", cfg.LimitScope, LimitPerKey, LimitPerAccount)
	}
	if cfg.MaxInFlight < 0 {
		return nil, errors.New("api: the in-flight cap must not be negative")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	s := &Server{
		svc: cfg.Service, store: cfg.Service.Store(), limiter: cfg.Limiter, log: cfg.Logger,
		metrics: cfg.Metrics, files: cfg.Files, ready: cfg.Ready, details: cfg.ReadyDetails, pages: cfg.Pages,
		budget: cfg.Budget, maxInFlight: int64(cfg.MaxInFlight), perAccount: cfg.LimitScope == LimitPerAccount,
	}
	s.mcache.ttl = cfg.MaintenanceTTL
	s.idemLease = cfg.IdempotencyLease
	if s.idemLease <= 0 {
		s.idemLease = DefaultIdempotencyLease
	}
	var err error
	if s.openapi, err = newOpenAPIDocs(); err != nil {
		return nil, err
	}
	if s.docs, err = apidocs.New(); err != nil {
		return nil, err
	}
	s.handler = s.outer(s.routes())
	return s, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// route is one row of the routes table.
type route struct {
	method, path string
	version      Version
	handler      handlerFunc
}

// apiRoutes lists every API route.
func (s *Server) apiRoutes() []route {
	return []route{
		{"POST", "/v2/thumbnail/image", V2, serveGenerating(s, decodeThumbnailImage, s.thumbnailV2, thumbnailWork)},
		{"POST", "/v2/thumbnail/text", V2, serveGenerating(s, decodeThumbnailText, s.thumbnailV2, thumbnailWork)},
		{"POST", "/v2/thumbnail/faceswap", V2, serveGenerating(s, decodeFaceSwap, s.faceSwapV2, faceSwapWork)},
		{"POST", "/v2/thumbnail/edit", V2, serveGenerating(s, decodeEdit, s.editV2, editWork)},
		{"POST", "/v2/thumbnail/score", V2, serveGenerating(s, decodeScore, s.scoreV2, scoreWork)},
		{"POST", "/v2/title/text", V2, serveGenerating(s, decodeTitle, s.titleV2, titleWork)},
		{"GET", "/v2/requests/{id}", V2, s.v2GetRequest},
		{"DELETE", "/v2/requests/{id}", V2, s.v2CancelRequest},
		{"POST", "/v1/thumbnail", V1, serveJSON(decodeV1Thumbnail, s.thumbnailV1)},
		{"POST", "/v1/recreate", V1, serveJSON(decodeV1Recreate, s.thumbnailV1)},
		{"POST", "/v1/edit", V1, serveJSON(decodeV1Edit, s.editV1)},
		{"POST", "/v1/title", V1, serveJSON(decodeV1Title, s.titleV1)},
		{"POST", "/v1/faceswap", V1, serveJSON(decodeV1FaceSwap, s.faceSwapV1)},
		{"POST", "/v2/custom/style", V2, s.v2CreateCustom(core.ModeStyle)},
		{"POST", "/v2/custom/persona", V2, s.v2CreateCustom(core.ModePersona)},
		{"GET", "/v2/custom", V2, s.v2ListCustom},
		{"GET", "/v2/custom/{id}", V2, s.v2GetCustom},
		{"DELETE", "/v2/custom/{id}", V2, s.v2DeleteCustom},
		{"PATCH", "/v2/custom/{id}", V2, s.v2PatchCustom},
		{"GET", "/v2/account", V2, s.v2Account},
		{"GET", "/v2/account/usage", V2, s.v2Usage},
		{"GET", "/v2/account/ledger", V2, s.v2Ledger},
		{"GET", "/v2/outputs", V2, s.v2ListOutputs},
		{"POST", "/v1/persona", V1, s.v1CreatePersona},
		{"POST", "/v1/style", V1, s.v1CreateStyle},
		{"GET", "/v1/persona", V1, s.v1GetPersona},
		{"GET", "/v1/style", V1, s.v1GetStyle},
		{"GET", "/admin/api/accounts", Admin, s.adminListAccounts},
		{"POST", "/admin/api/accounts", Admin, s.adminCreateAccount},
		{"PATCH", "/admin/api/accounts/{id}", Admin, s.adminUpdateAccount},
		{"POST", "/admin/api/accounts/{id}/credits", Admin, s.adminGrant},
		{"GET", "/admin/api/accounts/{id}/keys", Admin, s.adminListKeys},
		{"POST", "/admin/api/accounts/{id}/keys", Admin, s.adminCreateKey},
		{"PATCH", "/admin/api/keys/{id}", Admin, s.adminSetKeyStatus},
		{"GET", "/admin/api/maintenance", Admin, s.adminGetMaintenance},
		{"PUT", "/admin/api/maintenance", Admin, s.adminSetMaintenance},
	}
}

// routes builds the mux: API routes, unknown paths and wrong methods answered in each
// version's shape, and the operational endpoints.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern string, h http.Handler) {
		s.documented = append(s.documented, pattern)
		mux.Handle(pattern, h)
	}
	other := func(pattern string, h http.Handler) {
		s.undocumented = append(s.undocumented, pattern)
		mux.Handle(pattern, h)
	}
	for _, rt := range s.apiRoutes() {
		pattern := rt.method + " " + rt.path
		route(pattern, s.api(pattern, rt.version, rt.handler))
	}
	other("/v1/", s.notFound(mux, V1))
	other("/v2/", s.notFound(mux, V2))
	other("/admin/api/", s.notFound(mux, Admin))
	other("/", s.notFound(mux, V2))
	route("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	route("GET /readyz", http.HandlerFunc(s.readyz))
	route("GET /metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	route("GET /openapi.json", s.openapi.serve(false))
	route("GET /openapi-3.0.json", s.openapi.serve(true))
	for _, p := range s.docs.Patterns() {
		if p == "GET /docs" {
			route(p, s.docs) // the reference page; its assets are not routes
		} else {
			other(p, s.docs)
		}
	}
	if s.files != nil {
		other("GET /files/", s.files)
	}
	if s.pages != nil {
		for _, p := range s.pages.Patterns() {
			other(p, s.pages)
		}
	}
	return mux
}

// Patterns lists the mux's patterns as registered: documented are the routes the OpenAPI
// document must describe (API and operational routes), undocumented the web console's
// pages, static assets, output files and the catch-alls that answer unknown paths.
func (s *Server) Patterns() (documented, undocumented []string) {
	return slices.Clone(s.documented), slices.Clone(s.undocumented)
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	status, body := http.StatusOK, map[string]any{"status": "ready"}
	if s.ready != nil {
		if err := s.ready(ctx); err != nil {
			s.log.WarnContext(ctx, "not ready", "err", err)
			status, body["status"] = http.StatusServiceUnavailable, "unavailable"
		}
	}
	if s.details != nil {
		for k, v := range s.details(ctx) {
			body[k] = v
		}
	}
	writeJSON(w, status, body)
}

// notFound answers a request no route took. When the path is a route for other methods,
// it says so and names them in the Allow header; the code is NOT_FOUND either way (the
// code table has no method code).
func (s *Server) notFound(mux *http.ServeMux, v Version) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allow := allowedMethods(mux, r)
		if len(allow) == 0 {
			writeError(w, r, s.log, v, core.E(core.CodeNotFound, "No route %s %s.", r.Method, r.URL.Path))
			return
		}
		methods := strings.Join(allow, ", ")
		w.Header().Set("Allow", methods)
		writeError(w, r, s.log, v, core.E(core.CodeNotFound, "%s %s is not a route; this path accepts %s.", r.Method, r.URL.Path, methods))
	})
}

// allowedMethods lists the methods the mux routes r's path for.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); strings.HasPrefix(pattern, m+" ") {
			allow = append(allow, m)
		}
	}
	return allow
}
