package main

import (
	"errors"
	"fmt"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/webhooks"
)

// previousSecretKept is how long a rotated-out secret keeps signing beside the new one, so
// receivers can move to the new secret without missing a delivery.
const previousSecretKept = 24 * time.Hour

// webhookView is what the webhook commands print; Secret only when one is made.
type webhookView struct {
	*core.Webhook
	Secret string `json:"secret,omitempty"`
}

// webhooksCmd runs `thumbforge webhooks set|show|rotate-secret|remove|deliveries`.
func (c *adminCmd) webhooksCmd() error {
	acct, err := c.accountFlag()
	if err != nil {
		return err
	}
	switch c.pos[0] {
	case "set":
		if err := webhooks.CheckURL(c.url); err != nil {
			return fmt.Errorf("--url: %w", err)
		}
		if _, err := c.st.GetAccount(c.ctx, acct); err != nil {
			return describe(err, "account", acct)
		}
		secret, err := webhooks.NewSecret()
		if err != nil {
			return err
		}
		w, created, err := c.st.SetWebhook(c.ctx, acct, c.url, secret)
		if err != nil {
			return describe(err, "account", acct)
		}
		if !created {
			return c.print(webhookView{Webhook: w}, fmt.Sprintf("webhook of %s now posts to %s (its signing secret is unchanged)", acct, w.URL))
		}
		return c.print(webhookView{Webhook: w, Secret: secret},
			fmt.Sprintf("webhook of %s posts to %s\nsigning secret (shown once): %s", acct, w.URL, secret))
	case "show":
		w, err := c.st.GetWebhook(c.ctx, acct)
		if err != nil {
			return noWebhook(err, acct)
		}
		text := fmt.Sprintf("url: %s\ncreated: %s\nupdated: %s", w.URL, w.CreatedAt.Format(time.RFC3339), w.UpdatedAt.Format(time.RFC3339))
		if w.PreviousUntil != nil && time.Now().Before(*w.PreviousUntil) {
			text += "\nthe previous secret signs too until " + w.PreviousUntil.Format(time.RFC3339)
		}
		return c.print(webhookView{Webhook: w}, text)
	case "rotate-secret":
		secret, err := webhooks.NewSecret()
		if err != nil {
			return err
		}
		w, err := c.st.RotateWebhookSecret(c.ctx, acct, secret, time.Now().Add(previousSecretKept))
		if err != nil {
			return noWebhook(err, acct)
		}
		return c.print(webhookView{Webhook: w, Secret: secret}, fmt.Sprintf(
			"new signing secret (shown once): %s\nthe previous secret signs beside it until %s", secret, w.PreviousUntil.Format(time.RFC3339)))
	case "remove":
		if err := c.st.DeleteWebhook(c.ctx, acct); err != nil {
			return noWebhook(err, acct)
		}
		return c.print(map[string]string{"account_id": acct.String(), "status": "removed"}, "webhook of "+acct.String()+" removed")
	case "deliveries":
		if c.limit < 1 || c.limit > 1000 {
			return errors.New("--limit must be between 1 and 1000")
		}
		list, err := c.st.WebhookDeliveries(c.ctx, acct, c.limit)
		if err != nil {
			return err
		}
		if c.json {
			return c.print(list, "")
		}
		rows := make([]string, len(list))
		for i, d := range list {
			rows[i] = fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%dms\t%s", d.CreatedAt.Format(time.RFC3339), d.EventID, d.EventType,
				d.Attempt, d.Status, d.DurationMS, d.Error)
		}
		c.table("TIME\tEVENT\tTYPE\tATTEMPT\tSTATUS\tTOOK\tERROR", rows)
		return nil
	}
	return fmt.Errorf("unknown webhooks subcommand %q", c.pos[0])
}

// noWebhook names a missing webhook.
func noWebhook(err error, acct fmt.Stringer) error {
	if errors.Is(err, core.ErrNotFound) {
		return fmt.Errorf("account %s has no webhook (thumbforge webhooks set --account %s --url URL)", acct, acct)
	}
	return err
}
