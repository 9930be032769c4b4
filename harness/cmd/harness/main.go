// Command harness builds web-server targets in Docker and measures them
// with bombardier; see the README. It wires signals to the cli package and
// is the one place the process exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/webbench/webbench/harness/cli"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx := cli.OnSignals(context.Background(), sigs, os.Stderr, os.Exit)
	os.Exit(cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
