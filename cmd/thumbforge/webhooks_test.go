package main

import (
	"strings"
	"testing"
)

func TestWebhooksCommands(t *testing.T) {
	d := "--data=" + t.TempDir()
	out, _, _ := cli(t, "accounts", "create", "--name", "hooked", d)
	acct := strings.TrimSpace(out)

	for _, bad := range []string{"ftp://example.com/x", "example.com/hook", "https://user:pw@example.com/", "https://example.com/#frag", "http://", "https://exa mple.com/"} {
		if _, errs, code := cli(t, "webhooks", "set", "--account", acct, "--url", bad, d); code != 1 || !strings.Contains(errs, "--url") {
			t.Errorf("%q: %d %s", bad, code, errs)
		}
	}
	if _, errs, code := cli(t, "webhooks", "set", "--url", "https://example.com/", d); code != 1 || !strings.Contains(errs, "--account") {
		t.Errorf("without --account: %d %s", code, errs)
	}
	if _, errs, code := cli(t, "webhooks", "set", "--account", "00000000-0000-0000-0000-000000000001", "--url", "https://example.com/", d); code != 1 || !strings.Contains(errs, "no account") {
		t.Errorf("unknown account: %d %s", code, errs)
	}
	if _, errs, code := cli(t, "webhooks", "show", "--account", acct, d); code != 1 || !strings.Contains(errs, "has no webhook") {
		t.Errorf("show before set: %d %s", code, errs)
	}

	out, _, code := cli(t, "webhooks", "set", "--account", acct, "--url", "https://example.com/a", d, "--json")
	var set struct{ URL, Secret string }
	mustJSON(t, out, &set)
	if code != 0 || set.URL != "https://example.com/a" || !strings.HasPrefix(set.Secret, "whsec_") {
		t.Fatalf("set: %d %s", code, out)
	}
	out, _, _ = cli(t, "webhooks", "set", "--account", acct, "--url", "http://example.com/b", d)
	if strings.Contains(out, "whsec_") || !strings.Contains(out, "secret is unchanged") {
		t.Fatalf("set again: %s", out)
	}
	out, _, _ = cli(t, "webhooks", "show", "--account", acct, d)
	if !strings.Contains(out, "http://example.com/b") || strings.Contains(out, "whsec_") {
		t.Fatalf("show: %s", out)
	}
	out, _, code = cli(t, "webhooks", "rotate-secret", "--account", acct, d, "--json")
	var rot struct{ Secret string }
	mustJSON(t, out, &rot)
	if code != 0 || !strings.HasPrefix(rot.Secret, "whsec_") || rot.Secret == set.Secret {
		t.Fatalf("rotate: %s", out)
	}
	if out, _, _ = cli(t, "webhooks", "show", "--account", acct, d); !strings.Contains(out, "previous secret signs too") {
		t.Fatalf("show after rotation: %s", out)
	}
	if out, _, code = cli(t, "webhooks", "deliveries", "--account", acct, d); code != 0 || !strings.Contains(out, "ATTEMPT") {
		t.Fatalf("deliveries: %d %s", code, out)
	}
	if _, errs, code := cli(t, "webhooks", "deliveries", "--account", acct, "--limit", "0", d); code != 1 || !strings.Contains(errs, "--limit") {
		t.Fatalf("limit 0: %d %s", code, errs)
	}
	if _, _, code := cli(t, "webhooks", "remove", "--account", acct, d); code != 0 {
		t.Fatal("remove")
	}
	if _, errs, code := cli(t, "webhooks", "remove", "--account", acct, d); code != 1 || !strings.Contains(errs, "has no webhook") {
		t.Fatalf("remove twice: %d %s", code, errs)
	}
	if _, errs, code := cli(t, "webhooks", "frobnicate", "--account", acct, d); code != 1 || !strings.Contains(errs, "unknown webhooks subcommand") {
		t.Fatalf("unknown: %d %s", code, errs)
	}
}
