package main

import (
	"errors"
	"fmt"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

type keyView struct {
	*core.APIKey
	Key string `json:"key,omitempty"`
}

func (c *adminCmd) keys() error {
	switch c.pos[0] {
	case "create":
		acct, err := c.accountFlag()
		if err != nil {
			return err
		}
		secret, k, err := app.CreateKey(c.ctx, c.st, acct)
		if err != nil {
			return describe(err, "account", acct)
		}
		return c.print(keyView{APIKey: k, Key: secret}, secret)
	case "list":
		acct, err := c.accountFlag()
		if err != nil {
			return err
		}
		list, err := c.st.ListKeys(c.ctx, acct)
		if err != nil {
			return err
		}
		if c.json {
			return c.print(list, "")
		}
		rows := make([]string, len(list))
		for i, k := range list {
			rows[i] = fmt.Sprintf("%s\t%s…\t%s\t%s", k.ID, k.Prefix, k.Status, k.CreatedAt.Format("2006-01-02 15:04"))
		}
		c.table("ID\tPREFIX\tSTATUS\tCREATED", rows)
		return nil
	case "deactivate", "activate", "delete":
		id, err := c.id(1, "key id")
		if err != nil {
			return err
		}
		status := map[string]core.KeyStatus{"deactivate": core.KeyInactive, "activate": core.KeyActive, "delete": core.KeyDeleted}[c.pos[0]]
		k, err := c.st.GetKey(c.ctx, id)
		if err != nil {
			return describe(err, "key", id)
		}
		if k.Status == core.KeyDeleted && status != core.KeyDeleted {
			return fmt.Errorf("key %s is deleted and cannot be changed", id)
		}
		if err := c.st.SetKeyStatus(c.ctx, id, status); err != nil {
			return describe(err, "key", id)
		}
		k.Status = status
		return c.print(k, fmt.Sprintf("key %s is now %s", id, status))
	}
	return fmt.Errorf("unknown keys subcommand %q", c.pos[0])
}

func (c *adminCmd) creditsCmd() error {
	acct, err := c.accountFlag()
	if err != nil {
		return err
	}
	switch c.pos[0] {
	case "add":
		if c.amount <= 0 {
			return errors.New("--amount must be a positive number of credits")
		}
		bal, err := c.st.Grant(c.ctx, acct, c.amount, "admin")
		if err != nil {
			return describe(err, "account", acct)
		}
		return c.print(map[string]any{"account_id": acct, "balance": bal}, fmt.Sprintf("balance: %d", bal))
	case "show":
		a, err := c.st.GetAccount(c.ctx, acct)
		if err != nil {
			return describe(err, "account", acct)
		}
		return c.print(map[string]any{"account_id": a.ID, "balance": a.Balance}, fmt.Sprintf("%d", a.Balance))
	case "ledger":
		rows, err := c.st.Ledger(c.ctx, acct, 100)
		if err != nil {
			return err
		}
		if c.json {
			return c.print(rows, "")
		}
		lines := make([]string, len(rows))
		for i, e := range rows {
			lines[i] = fmt.Sprintf("%s\t%s\t%+d\t%d\t%s\t%s", e.CreatedAt.Format("2006-01-02 15:04:05"), e.Kind, e.Delta, e.Amount, e.Operation, e.Ref)
		}
		c.table("TIME\tKIND\tDELTA\tAMOUNT\tOPERATION\tREF", lines)
		return nil
	}
	return fmt.Errorf("unknown credits subcommand %q", c.pos[0])
}

func (c *adminCmd) billing() error {
	switch c.pos[0] {
	case "invoices":
		acct, err := c.accountFlag()
		if err != nil {
			return err
		}
		list, err := c.st.Invoices(c.ctx, acct)
		if err != nil {
			return err
		}
		if c.json {
			return c.print(list, "")
		}
		rows := make([]string, len(list))
		for i, v := range list {
			rows[i] = fmt.Sprintf("%s\t%d\t%s\t%s", v.ID, v.Amount, v.Status, v.CreatedAt.Format("2006-01-02 15:04"))
		}
		c.table("ID\tAMOUNT\tSTATUS\tCREATED", rows)
		return nil
	case "settle":
		id, err := c.id(1, "invoice id")
		if err != nil {
			return err
		}
		v, err := c.arg(2, "paid|failed")
		if err != nil {
			return err
		}
		status := core.InvoiceStatus(v)
		if status != core.InvoicePaid && status != core.InvoiceFailed {
			return fmt.Errorf("want paid or failed, not %q", v)
		}
		if err := c.st.SettleInvoice(c.ctx, id, status); err != nil {
			return describe(err, "open invoice", id)
		}
		return c.print(map[string]any{"id": id, "status": status}, fmt.Sprintf("invoice %s is %s", id, status))
	}
	return fmt.Errorf("unknown billing subcommand %q", c.pos[0])
}

func (c *adminCmd) maintenance() error {
	switch c.pos[0] {
	case "on", "off":
		on := c.pos[0] == "on"
		if err := c.st.SetMaintenance(c.ctx, on); err != nil {
			return err
		}
		return c.print(map[string]bool{"maintenance": on}, "maintenance "+c.pos[0])
	case "status":
		on, err := c.st.Maintenance(c.ctx)
		if err != nil {
			return err
		}
		state := "off"
		if on {
			state = "on"
		}
		return c.print(map[string]bool{"maintenance": on}, "maintenance "+state)
	}
	return fmt.Errorf("unknown maintenance subcommand %q", c.pos[0])
}

// adminToken makes a new admin token for the /admin console, stores only its hash (which
// revokes the previous token) and prints it, once.
func (c *adminCmd) adminToken() error {
	if len(c.pos) > 0 {
		return fmt.Errorf("admin-token takes no arguments, got %q", c.pos[0])
	}
	token, err := core.NewAdminToken()
	if err != nil {
		return err
	}
	if err := c.st.SetAdminTokenHash(c.ctx, core.HashKey(token)); err != nil {
		return err
	}
	return c.print(map[string]string{"admin_token": token}, token)
}
