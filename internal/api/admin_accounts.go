package api

import (
	"errors"
	"net/http"

	"thumbforge/internal/core"
)

// The operator's account and key endpoints: what the admin CLI commands do, over HTTP.

type accountsBody struct {
	Accounts []core.Account `json:"accounts"`
}

type keysBody struct {
	Keys []core.APIKey `json:"keys"`
}

// newKeyBody is a created key with its secret, shown this once.
type newKeyBody struct {
	core.APIKey
	Key string `json:"key"`
}

type balanceBody struct {
	Balance int64 `json:"balance"`
}

func (s *Server) adminListAccounts(w http.ResponseWriter, r *http.Request) error {
	list, err := s.store.ListAccounts(r.Context())
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if list == nil {
		list = []core.Account{}
	}
	writeJSON(w, http.StatusOK, accountsBody{list})
	return nil
}

// adminCreateAccount: {name, credits?} -> the account, with API access and the default
// concurrency, as "thumbforge accounts create" makes it.
func (s *Server) adminCreateAccount(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	name, ok := b.required("name")
	if ok {
		if msg := checkAccountName(name); msg != "" {
			b.problem("name", msg)
		}
	}
	credits, _ := b.integer("credits", 0, maxCreditAmount)
	if err := b.finish(); err != nil {
		return err
	}
	a := &core.Account{Name: name, APIAccess: true, Concurrency: core.DefaultConcurrency}
	if err := s.store.CreateAccount(r.Context(), a); err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if credits > 0 {
		bal, err := s.store.Grant(r.Context(), a.ID, credits, "admin")
		if err != nil {
			return core.Wrap(core.CodeInternal, err, "Internal error.")
		}
		a.Balance = bal
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// adminUpdateAccount: any of {suspended, api_access, concurrency, topup_amount}.
func (s *Server) adminUpdateAccount(w http.ResponseWriter, r *http.Request) error {
	id, b, err := pathAndBody(r, "account")
	if err != nil {
		return err
	}
	suspended, hasSuspended := b.boolean("suspended")
	access, hasAccess := b.boolean("api_access")
	conc, hasConc := b.integer("concurrency", 1, maxConcurrency)
	topup, hasTopup := b.integer("topup_amount", 0, maxCreditAmount)
	if !hasSuspended && !hasAccess && !hasConc && !hasTopup && len(b.details) == 0 {
		b.problem("", "send at least one of suspended, api_access, concurrency, topup_amount")
	}
	if err := b.finish(); err != nil {
		return err
	}
	a, err := s.store.UpdateAccount(r.Context(), id, func(a *core.Account) error {
		if hasSuspended {
			a.Suspended = suspended
		}
		if hasAccess {
			a.APIAccess = access
		}
		if hasConc {
			a.Concurrency = int(conc)
		}
		if hasTopup {
			a.TopUpAmount = topup
		}
		return nil
	})
	if err != nil {
		return notFoundAs(err, "account")
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// adminGrant: {amount} credits added to the account; answers the new balance.
func (s *Server) adminGrant(w http.ResponseWriter, r *http.Request) error {
	id, b, err := pathAndBody(r, "account")
	if err != nil {
		return err
	}
	amount, ok := b.integer("amount", 1, maxCreditAmount)
	if !ok && !b.has("amount") {
		b.problem("amount", "is required")
	}
	if err := b.finish(); err != nil {
		return err
	}
	bal, err := s.store.Grant(r.Context(), id, amount, "admin")
	if err != nil {
		return notFoundAs(err, "account")
	}
	writeJSON(w, http.StatusOK, balanceBody{bal})
	return nil
}

func (s *Server) adminListKeys(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "account")
	if err != nil {
		return err
	}
	if _, err := s.store.GetAccount(r.Context(), id); err != nil {
		return notFoundAs(err, "account")
	}
	list, err := s.store.ListKeys(r.Context(), id)
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if list == nil {
		list = []core.APIKey{}
	}
	writeJSON(w, http.StatusOK, keysBody{list})
	return nil
}

// adminCreateKey makes a key for the account; the answer is the only time its secret is seen.
func (s *Server) adminCreateKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "account")
	if err != nil {
		return err
	}
	secret, err := core.NewKeySecret()
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	k := &core.APIKey{AccountID: id, Prefix: core.KeyDisplayPrefix(secret), Hash: core.HashKey(secret), Status: core.KeyActive}
	if err := s.store.CreateKey(r.Context(), k); err != nil {
		return notFoundAs(err, "account")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, newKeyBody{APIKey: *k, Key: secret})
	return nil
}

// adminSetKeyStatus: {status: active|inactive|deleted}; a deleted key stays deleted.
func (s *Server) adminSetKeyStatus(w http.ResponseWriter, r *http.Request) error {
	id, b, err := pathAndBody(r, "key")
	if err != nil {
		return err
	}
	status, ok := b.required("status")
	if ok {
		b.oneOf("status", status, string(core.KeyActive), string(core.KeyInactive), string(core.KeyDeleted))
	}
	if err := b.finish(); err != nil {
		return err
	}
	k, err := s.store.GetKey(r.Context(), id)
	if err != nil {
		return notFoundAs(err, "key")
	}
	if k.Status == core.KeyDeleted && core.KeyStatus(status) != core.KeyDeleted {
		return core.E(core.CodeConflict, "The key is deleted and cannot be changed.")
	}
	if err := s.store.SetKeyStatus(r.Context(), id, core.KeyStatus(status)); err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return notFoundAs(err, "key")
		}
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	k.Status = core.KeyStatus(status)
	writeJSON(w, http.StatusOK, k)
	return nil
}
