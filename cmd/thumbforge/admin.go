package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// adminCmd is one admin invocation: its store, output mode and arguments.
type adminCmd struct {
	ctx     context.Context
	st      core.Store
	json    bool
	out     io.Writer
	pos     []string
	account string
	name    string
	credits int64
	amount  int64
	url     string
	limit   int
}

func admin(ctx context.Context, group string, args []string, stdout io.Writer) error {
	cfg := app.Defaults()
	fs := newFlags(group, io.Discard)
	fs.StringVar(&cfg.DataDir, "data", envStr("THUMBFORGE_DATA", cfg.DataDir), "data directory")
	fs.StringVar(&cfg.Database, "database", envStr("THUMBFORGE_DATABASE", ""), "postgres:// URL")
	c := &adminCmd{ctx: ctx, out: stdout}
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.account, "account", "", "account id")
	fs.StringVar(&c.name, "name", "", "account name")
	fs.Int64Var(&c.credits, "credits", 0, "initial credits")
	fs.Int64Var(&c.amount, "amount", 0, "credits to add")
	fs.StringVar(&c.url, "url", "", "webhook URL (http:// or https://)")
	fs.IntVar(&c.limit, "limit", 20, "how many delivery attempts to list")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return nil
		}
		return err
	}
	if len(pos) == 0 && group != "admin-token" {
		return fmt.Errorf("missing subcommand (see thumbforge help)")
	}
	c.pos = pos
	if c.st, err = app.OpenStore(ctx, cfg); err != nil {
		return err
	}
	defer c.st.Close()
	switch group {
	case "accounts":
		return c.accounts()
	case "keys":
		return c.keys()
	case "credits":
		return c.creditsCmd()
	case "billing":
		return c.billing()
	case "admin-token":
		return c.adminToken()
	case "webhooks":
		return c.webhooksCmd()
	default:
		return c.maintenance()
	}
}

// arg returns positional argument i (after the subcommand) or an error naming it.
func (c *adminCmd) arg(i int, what string) (string, error) {
	if len(c.pos) <= i {
		return "", fmt.Errorf("%s: missing %s", c.pos[0], what)
	}
	return c.pos[i], nil
}

// id parses positional argument i as a UUID.
func (c *adminCmd) id(i int, what string) (uuid.UUID, error) {
	s, err := c.arg(i, what)
	if err != nil {
		return uuid.Nil, err
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("%s %q is not a valid id", what, s)
	}
	return id, nil
}

func (c *adminCmd) accountFlag() (uuid.UUID, error) {
	if c.account == "" {
		return uuid.Nil, errors.New("--account ID is required")
	}
	id, err := uuid.Parse(c.account)
	if err != nil {
		return uuid.Nil, fmt.Errorf("account %q is not a valid id", c.account)
	}
	return id, nil
}

// print writes v as JSON with --json, or text otherwise.
func (c *adminCmd) print(v any, text string) error {
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(c.out, text)
	return err
}

func (c *adminCmd) table(header string, rows []string) {
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
}

func (c *adminCmd) accounts() error {
	switch c.pos[0] {
	case "create":
		if c.name == "" {
			return errors.New("--name is required")
		}
		if c.credits < 0 {
			return errors.New("--credits must not be negative")
		}
		a := &core.Account{Name: c.name, APIAccess: true, Concurrency: core.DefaultConcurrency}
		if err := c.st.CreateAccount(c.ctx, a); err != nil {
			return err
		}
		if c.credits > 0 {
			bal, err := c.st.Grant(c.ctx, a.ID, c.credits, "initial")
			if err != nil {
				return err
			}
			a.Balance = bal
		}
		return c.print(a, a.ID.String())
	case "list":
		list, err := c.st.ListAccounts(c.ctx)
		if err != nil {
			return err
		}
		if c.json {
			return c.print(list, "")
		}
		rows := make([]string, len(list))
		for i, a := range list {
			rows[i] = fmt.Sprintf("%s\t%s\t%d\t%t\t%t\t%d\t%d", a.ID, a.Name, a.Balance, a.Suspended, a.APIAccess, a.Concurrency, a.TopUpAmount)
		}
		c.table("ID\tNAME\tBALANCE\tSUSPENDED\tAPI_ACCESS\tCONCURRENCY\tTOPUP", rows)
		return nil
	case "suspend", "unsuspend":
		on := c.pos[0] == "suspend"
		return c.updateAccount(func(a *core.Account) error { a.Suspended = on; return nil })
	case "api-access":
		v, err := c.arg(2, "on|off")
		if err != nil {
			return err
		}
		on, err := onOff(v)
		if err != nil {
			return err
		}
		return c.updateAccount(func(a *core.Account) error { a.APIAccess = on; return nil })
	case "concurrency", "topup":
		v, err := c.arg(2, "a number")
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || (c.pos[0] == "concurrency" && n < 1) {
			return fmt.Errorf("%s: %q is not a valid number", c.pos[0], v)
		}
		if c.pos[0] == "concurrency" {
			return c.updateAccount(func(a *core.Account) error { a.Concurrency = int(n); return nil })
		}
		return c.updateAccount(func(a *core.Account) error { a.TopUpAmount = n; return nil })
	}
	return fmt.Errorf("unknown accounts subcommand %q", c.pos[0])
}

func (c *adminCmd) updateAccount(fn func(*core.Account) error) error {
	id, err := c.id(1, "account id")
	if err != nil {
		return err
	}
	a, err := c.st.UpdateAccount(c.ctx, id, fn)
	if err != nil {
		return describe(err, "account", id)
	}
	return c.print(a, fmt.Sprintf("account %s updated", a.ID))
}

func onOff(s string) (bool, error) {
	switch s {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("want on or off, not %q", s)
}

// describe turns store sentinels into messages an operator can act on.
func describe(err error, what string, id uuid.UUID) error {
	if errors.Is(err, core.ErrNotFound) {
		return fmt.Errorf("no %s with id %s", what, id)
	}
	return err
}
