package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// cli runs a command line in-process and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

func TestAdminCommands(t *testing.T) {
	data := t.TempDir()
	d := "--data=" + data

	out, errs, code := cli(t, "accounts", "create", "--name", "acme", "--credits", "50", d)
	if code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	acct := strings.TrimSpace(out)
	if len(acct) != 36 {
		t.Fatalf("accounts create printed %q, want an id", out)
	}

	out, _, code = cli(t, "keys", "create", "--account", acct, d)
	key := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(key, "mdl_") || strings.Contains(key, "\n") {
		t.Fatalf("keys create printed %q (%d)", out, code)
	}
	out, _, code = cli(t, "keys", "create", "--account", acct, d, "--json")
	var k struct{ ID, Key, Status string }
	mustJSON(t, out, &k)
	if code != 0 || k.ID == "" || !strings.HasPrefix(k.Key, "mdl_") || k.Status != "active" {
		t.Fatalf("keys create --json: %s", out)
	}
	out, _, _ = cli(t, "keys", "list", "--account", acct, d, "--json")
	var keys []map[string]any
	mustJSON(t, out, &keys)
	if len(keys) != 2 || strings.Contains(out, k.Key) {
		t.Fatalf("keys list: %s", out)
	}
	for _, verb := range []string{"deactivate", "activate", "delete"} {
		if _, e, c := cli(t, "keys", verb, k.ID, d); c != 0 {
			t.Fatalf("keys %s: %s", verb, e)
		}
	}
	if _, e, c := cli(t, "keys", "activate", k.ID, d); c == 0 || !strings.Contains(e, "deleted") {
		t.Fatalf("a deleted key was reactivated: %s", e)
	}

	out, _, _ = cli(t, "credits", "add", "--account", acct, "--amount", "25", d, "--json")
	var bal struct{ Balance int64 }
	mustJSON(t, out, &bal)
	if bal.Balance != 75 {
		t.Fatalf("balance after add: %s", out)
	}
	for _, amount := range []string{"0", "-5"} {
		if _, e, c := cli(t, "credits", "add", "--account", acct, "--amount", amount, d); c == 0 {
			t.Fatalf("amount %s accepted", amount)
		} else if e == "" {
			t.Fatal("no message")
		}
	}
	out, _, _ = cli(t, "credits", "show", "--account", acct, d, "--json")
	mustJSON(t, out, &bal)
	if bal.Balance != 75 {
		t.Fatalf("credits show: %s", out)
	}

	for _, args := range [][]string{
		{"accounts", "suspend", acct}, {"accounts", "unsuspend", acct},
		{"accounts", "api-access", acct, "off"}, {"accounts", "concurrency", acct, "3"},
		{"accounts", "topup", acct, "20"}, {"maintenance", "on"}, {"maintenance", "off"},
	} {
		if _, e, c := cli(t, append(args, d)...); c != 0 {
			t.Fatalf("%v: %s", args, e)
		}
	}
	out, _, _ = cli(t, "accounts", "list", d, "--json")
	var accts []struct {
		ID          string
		APIAccess   bool `json:"api_access"`
		Concurrency int
		Suspended   bool
	}
	mustJSON(t, out, &accts)
	if len(accts) != 1 || accts[0].ID != acct || accts[0].APIAccess || accts[0].Concurrency != 3 || accts[0].Suspended {
		t.Fatalf("accounts list: %s", out)
	}
	out, _, _ = cli(t, "maintenance", "status", d)
	if strings.TrimSpace(out) != "maintenance off" {
		t.Fatalf("maintenance status: %q", out)
	}
}

func TestAdminErrors(t *testing.T) {
	d := "--data=" + t.TempDir()
	cases := [][]string{
		{"accounts", "create", d},
		{"accounts", "suspend", "not-an-id", d},
		{"accounts", "suspend", "0190a000-0000-7000-8000-000000000000", d},
		{"accounts", "api-access", "0190a000-0000-7000-8000-000000000000", "maybe", d},
		{"accounts", "concurrency", "0190a000-0000-7000-8000-000000000000", "0", d},
		{"keys", "create", d},
		{"keys", "create", "--account", "0190a000-0000-7000-8000-000000000000", d},
		{"keys", "delete", "0190a000-0000-7000-8000-000000000000", d},
		{"credits", "show", "--account", "0190a000-0000-7000-8000-000000000000", d},
		{"maintenance", "sideways", d},
		{"accounts", d},
		{"nonsense"},
	}
	for _, args := range cases {
		_, e, c := cli(t, args...)
		if c == 0 || strings.TrimSpace(e) == "" {
			t.Errorf("%v: exit %d, stderr %q", args, c, e)
		}
	}
}

func TestAdminTokenCommand(t *testing.T) {
	dir := t.TempDir()
	d := "--data=" + dir
	first, errs, code := cli(t, "admin-token", d)
	first = strings.TrimSpace(first)
	if code != 0 || !strings.HasPrefix(first, "tfadm_") || len(first) != len("tfadm_")+40 {
		t.Fatalf("admin-token printed %q (%d, %s)", first, code, errs)
	}
	out, _, code := cli(t, "admin-token", d, "--json")
	var v struct {
		AdminToken string `json:"admin_token"`
	}
	mustJSON(t, out, &v)
	if code != 0 || v.AdminToken == first || !strings.HasPrefix(v.AdminToken, "tfadm_") {
		t.Fatalf("second token %q after %q", v.AdminToken, first)
	}
	// Only the latest token's hash is stored.
	cfg := app.Defaults()
	cfg.DataDir = dir
	st, err := app.OpenStore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if h, err := st.AdminTokenHash(context.Background()); err != nil || !bytes.Equal(h, core.HashKey(v.AdminToken)) {
		t.Fatalf("stored hash %x (%v), want the second token's", h, err)
	}
	if _, errs, code := cli(t, "admin-token", "extra", d); code == 0 || !strings.Contains(errs, "no arguments") {
		t.Fatalf("extra argument accepted: %d %s", code, errs)
	}
}

// TestEnvValuesThatDoNotParse sets, one at a time, every typed THUMBFORGE_* variable that
// a serve flag names to a value it cannot take, and checks that serve refuses to start
// naming the variable. The list comes from the flags themselves, so a flag added later is
// covered without touching this test.
func TestEnvValuesThatDoNotParse(t *testing.T) {
	fs, _ := serveFlags(io.Discard)
	name := regexp.MustCompile(`\((THUMBFORGE_[A-Z_]+)\)`)
	typed := 0
	fs.VisitAll(func(f *flag.Flag) {
		m := name.FindStringSubmatch(f.Usage)
		if m == nil {
			return
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return // fs.Func: parses its own text (a typed one reads its variable with envParse)
		}
		var bad string
		switch g.Get().(type) {
		case bool:
			bad = "yes please"
		case time.Duration:
			bad = "90" // a number without its unit: not 90 s, not the default
		case int, int64, uint, uint64, float64:
			bad = "many"
		default:
			return // a string, or a flag that parses its own text when serve runs
		}
		typed++
		t.Run(m[1], func(t *testing.T) {
			t.Setenv(m[1], bad)
			// A cancelled context: a serve that wrongly starts stops at once (exit 0).
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var out, errb bytes.Buffer
			code := run(ctx, []string{"serve", "--data", t.TempDir(), "--addr", "127.0.0.1:0"}, &out, &errb)
			if errs := errb.String(); code == 0 || !strings.Contains(errs, m[1]) {
				t.Fatalf("serve with %s=%q: exit %d, stderr %q: want a refusal naming the variable", m[1], bad, code, errb.String())
			}
		})
	})
	if typed < 10 {
		t.Fatalf("only %d typed variables found: the usage texts lost their (THUMBFORGE_...) names?", typed)
	}
	// An empty variable is unset: the default applies.
	t.Setenv("THUMBFORGE_JOB_TIMEOUT", "")
	var env envReader
	if d := env.duration("THUMBFORGE_JOB_TIMEOUT", time.Minute); d != time.Minute || env.Err() != nil {
		t.Fatalf("empty variable: %v, %v", d, env.Err())
	}
}
