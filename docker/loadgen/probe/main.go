// Command probe makes one HTTP GET and prints what came back as JSON on
// stdout: {"status", "header", "body" (base64), "error"}; with -tcp it only
// opens a TCP connection. It runs inside the
// load generator's container, so the harness checks a target from exactly
// where bombardier will load it, on any Docker host. It always exits 0 when
// it could print a result; "error" says when there was no answer.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

type response struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
	Error  string      `json:"error,omitempty"`
}

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "whole-request timeout")
	tcp := flag.Bool("tcp", false, "only open a TCP connection to HOST:PORT (for services that do not speak HTTP)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: probe [-timeout 2s] URL | probe -tcp HOST:PORT")
		os.Exit(2)
	}
	var out response
	if *tcp {
		out = dial(flag.Arg(0), *timeout)
	} else {
		out = get(flag.Arg(0), *timeout)
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

func get(url string, timeout time.Duration) response {
	c := &http.Client{Timeout: timeout}
	resp, err := c.Get(url)
	if err != nil {
		return response{Error: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return response{Status: resp.StatusCode, Header: resp.Header, Error: "read body: " + err.Error()}
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}
