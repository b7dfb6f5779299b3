package core

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
)

// KeyPrefix starts every API key (SPEC: keys begin with mdl_).
const KeyPrefix = "mdl_"

// keyRandomLen is how many base62 characters follow the prefix in new keys (~238 bits).
const keyRandomLen = 40

// minKeyRandomLen is the shortest random part a well-formed key may have.
const minKeyRandomLen = 32

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// AdminTokenPrefix starts every admin token, so one is never mistaken for an API key.
const AdminTokenPrefix = "tfadm_"

// NewKeySecret returns a fresh API key: mdl_ and 40 random base62 characters.
func NewKeySecret() (string, error) {
	return randomSecret(KeyPrefix, keyRandomLen)
}

// NewAdminToken returns a fresh admin token: tfadm_ and 40 random base62 characters. Only
// its HashKey is stored.
func NewAdminToken() (string, error) {
	return randomSecret(AdminTokenPrefix, keyRandomLen)
}

// randomSecret returns prefix followed by n random base62 characters.
func randomSecret(prefix string, n int) (string, error) {
	b := make([]byte, n)
	max := big.NewInt(int64(len(base62)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b[i] = base62[v.Int64()]
	}
	return prefix + string(b), nil
}

// WellFormedKey reports whether s has the shape of an API key: mdl_ and 32 to 128 base62
// characters.
func WellFormedKey(s string) bool {
	if len(s) < len(KeyPrefix)+minKeyRandomLen || len(s) > len(KeyPrefix)+128 || s[:len(KeyPrefix)] != KeyPrefix {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// HashKey returns the stored form of a key: its SHA-256.
func HashKey(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// KeyDisplayPrefix is the part of a key shown in listings.
func KeyDisplayPrefix(secret string) string {
	if len(secret) < len(KeyPrefix)+6 {
		return secret
	}
	return secret[:len(KeyPrefix)+6]
}
