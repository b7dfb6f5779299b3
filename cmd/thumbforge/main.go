// Command thumbforge is the thumbnail and title generation service and its admin tool.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `thumbforge: self-hosted thumbnail and title generation API.

Usage:
  thumbforge serve [flags]                 run the service (embedded defaults: SQLite and files in ./data)
  thumbforge accounts create --name N [--credits C] | list | suspend ID | unsuspend ID
                      | api-access ID on|off | concurrency ID N | topup ID N
  thumbforge keys create --account ID | list --account ID | deactivate|activate|delete KEYID
  thumbforge credits add --account ID --amount N | show --account ID | ledger --account ID
  thumbforge billing invoices --account ID | settle INVOICE paid|failed
  thumbforge maintenance on|off|status
  thumbforge admin-token                   print a new token for the /admin console (revokes the previous one)
  thumbforge webhooks set --account ID --url URL | show --account ID | rotate-secret --account ID
                      | remove --account ID | deliveries --account ID [--limit N]
  thumbforge gallery --out DIR             render a fixed set of sample thumbnails
  thumbforge engine check [--engine ... --engine-url ...]
                                           ping a generative engine's backends, say what works

Every admin command takes --data DIR (or THUMBFORGE_DATA), --database URL (or
THUMBFORGE_DATABASE) and --json. Run "thumbforge serve -h" for the server's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line; it returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr)
	case "accounts", "keys", "credits", "billing", "maintenance", "admin-token", "webhooks":
		err = admin(ctx, args[0], args[1:], stdout)
	case "gallery":
		err = runGallery(ctx, args[1:], stdout)
	case "engine":
		err = engineCommand(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "thumbforge: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "thumbforge %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
