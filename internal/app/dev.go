package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// DevCredits is the balance of the account --dev creates.
const DevCredits = 1000

// EnsureDevAccount creates, the first time only, a local account with credits and a key,
// and returns the key. The key is kept in the data dir (mode 0600) so that later starts
// can print it again; the store itself keeps only its hash.
func EnsureDevAccount(ctx context.Context, st core.Store, dataDir string) (string, error) {
	path := filepath.Join(dataDir, "dev-key")
	if b, err := os.ReadFile(path); err == nil {
		key := strings.TrimSpace(string(b))
		if _, _, err := st.KeyByHash(ctx, core.HashKey(key)); err == nil {
			return key, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	acct := &core.Account{Name: "dev", APIAccess: true, Concurrency: core.DefaultConcurrency}
	if err := st.CreateAccount(ctx, acct); err != nil {
		return "", fmt.Errorf("create dev account: %w", err)
	}
	if _, err := st.Grant(ctx, acct.ID, DevCredits, "dev"); err != nil {
		return "", fmt.Errorf("grant dev credits: %w", err)
	}
	key, _, err := CreateKey(ctx, st, acct.ID)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", err
	}
	return key, nil
}

// CreateKey makes a new active key for an account and returns its secret, shown only now.
func CreateKey(ctx context.Context, st core.Store, account uuid.UUID) (string, *core.APIKey, error) {
	if _, err := st.GetAccount(ctx, account); err != nil {
		return "", nil, fmt.Errorf("account %s: %w", account, err)
	}
	secret, err := core.NewKeySecret()
	if err != nil {
		return "", nil, err
	}
	k := &core.APIKey{AccountID: account, Prefix: core.KeyDisplayPrefix(secret), Hash: core.HashKey(secret), Status: core.KeyActive}
	if err := st.CreateKey(ctx, k); err != nil {
		return "", nil, fmt.Errorf("create key: %w", err)
	}
	return secret, k, nil
}
