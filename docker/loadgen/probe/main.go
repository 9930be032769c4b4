// Command probe makes one HTTP GET and prints what came back as JSON on
// stdout: {"status", "header", "body" (base64), "wire_bytes", "error"}; with
// -tcp it only opens a TCP connection. Like bombardier it follows no
// redirect, asks for no compression, and keeps the connection alive unless
// told -close (then it sends Connection: close, as bombardier does with
// keep-alive off); wire_bytes counts what it read off the connection
// (status line, headers, body framing), the figure bombardier's bytes read
// per response compares with, so the request must be asked the same way:
// servers answer Connection: close with other headers than keep-alive. It runs inside the
// load generator's container, so the harness checks a target from exactly
// where bombardier will load it, on any Docker host. It always exits 0 when
// it could print a result; "error" says when there was no answer.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/webbench/webbench/docker/loadgen/internal/wire"
)

type response struct {
	Status    int         `json:"status"`
	Header    http.Header `json:"header"`
	Body      []byte      `json:"body"`
	WireBytes int64       `json:"wire_bytes"`
	Error     string      `json:"error,omitempty"`
}

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "whole-request timeout")
	tcp := flag.Bool("tcp", false, "only open a TCP connection to HOST:PORT (for services that do not speak HTTP)")
	closeConn := flag.Bool("close", false, "send Connection: close (bombardier with keep-alive off) instead of keeping the connection alive")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: probe [-timeout 2s] [-close] URL | probe -tcp HOST:PORT")
		os.Exit(2)
	}
	var out response
	if *tcp {
		out = dial(flag.Arg(0), *timeout)
	} else {
		out = get(flag.Arg(0), *timeout, *closeConn)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}

func dial(addr string, timeout time.Duration) response {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return response{Error: err.Error()}
	}
	c.Close()
	return response{}
}

func get(url string, timeout time.Duration, closeConn bool) response {
	var read atomic.Int64
	dialer := &net.Dialer{Timeout: timeout}
	c := &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DisableCompression: true,
			DisableKeepAlives:  closeConn, // true sends Connection: close

			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := dialer.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return wire.CountingConn{Conn: conn, N: &read}, nil
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url)
	if err != nil {
		return response{Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return response{Status: resp.StatusCode, Header: resp.Header, Error: "read body: " + err.Error()}
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: body, WireBytes: read.Load()}
}
