// Command harness builds web-server targets in Docker and measures them
// with bombardier; see the README. It wires signals to the cli package and
// is the one place the process exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/webbench/webbench/harness/cli"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		fmt.Fprintln(os.Stderr, "\ninterrupt: stopping, removing containers (again to kill at once)")
		cancel()
		<-sigs
		os.Exit(cli.ExitInterrupted)
	}()
	os.Exit(cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
