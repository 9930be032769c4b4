package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/verify"
)

// maxHeader bounds what check reads of one answer's status line and
// headers, as net/http's Transport bounds them (MaxResponseHeaderBytes):
// a server that sends headers without end would otherwise grow the
// harness's memory until it dies, once per connection of the concurrency
// rule. Real servers send well under 1 KiB.
const maxHeader = 64 << 10

// quiet is how long check listens, after an answer read whole, for bytes
// nobody asked for (an answer sent unasked, a body longer than its
// Content-Length). A server slower than this to send them is caught
// anyway when they are read as the next answer.
const quiet = 250 * time.Millisecond

// errHeaders is what reading an answer's headers past maxHeader fails with.
var errHeaders = fmt.Errorf("its status line and headers went on past %d KiB", maxHeader>>10)

// Ask is the request the connection rules send, and what its answer must be.
type Ask struct {
	Host, Path string
	Expect     matrix.Expect
	// Subst resolves the {param} references of Expect; nil: there are none.
	Subst func(string) string
}

// capped reads at most n bytes from r, then fails with errHeaders; the
// client raises n once an answer's headers are read.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errHeaders
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// client is one HTTP/1.1 connection the connection rules ask on.
type client struct {
	conn     net.Conn
	in       *capped
	br       *bufio.Reader
	host     string
	deadline time.Time
}

func newClient(conn net.Conn, host string, deadline time.Time) *client {
	in := &capped{r: conn, n: math.MaxInt64}
	conn.SetDeadline(deadline)
	return &client{conn: conn, in: in, br: bufio.NewReader(in), host: host, deadline: deadline}
}

// bodyError is an answer whose body could not be read whole: read is how
// many bytes of it were.
type bodyError struct {
	resp *http.Response
	read int64
	err  error // nil: the body went on past maxBody
}

func (e *bodyError) Error() string {
	switch {
	case e.err == nil:
		return fmt.Sprintf("its body went on past the %d MiB check reads (a body without end?)", maxBody>>20)
	case errors.Is(e.err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("its body had not ended when the time ran out, after %d bytes (a body without end?)", e.read)
	case errors.Is(e.err, io.ErrUnexpectedEOF) && e.resp.ContentLength >= 0:
		return fmt.Sprintf("the server closed the connection after %d of the %d bytes its Content-Length announced", e.read, e.resp.ContentLength)
	case errors.Is(e.err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the server closed the connection after %d bytes, before the chunked body's last chunk", e.read)
	}
	return fmt.Sprintf("reading its body, after %d bytes: %v", e.read, e.err)
}

// ask writes a GET of path and reads its answer whole, keeping its body
// when keep is set.
func (c *client) ask(path string, keep bool) (*http.Response, []byte, error) {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: webbench-check\r\nAccept: */*\r\n\r\n", path, c.host)
	if _, err := io.WriteString(c.conn, req); err != nil {
		return nil, nil, err
	}
	c.in.n = maxHeader - int64(c.br.Buffered())
	resp, err := http.ReadResponse(c.br, nil)
	c.in.n = math.MaxInt64
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	sink := io.Discard
	if keep {
		sink = &body
	}
	n, err := io.Copy(sink, io.LimitReader(resp.Body, maxBody+1))
	switch {
	case err != nil:
		return resp, nil, &bodyError{resp: resp, read: n, err: err}
	case n > maxBody:
		return resp, nil, &bodyError{resp: resp, read: n}
	}
	return resp, body.Bytes(), nil
}

// unasked is what the server sent, within quiet, after an answer read
// whole: nil and no error when it sent nothing, io.EOF when it closed the
// connection.
func (c *client) unasked() ([]byte, error) {
	if c.br.Buffered() == 0 {
		c.conn.SetReadDeadline(time.Now().Add(quiet))
		_, err := c.br.Peek(1)
		c.conn.SetReadDeadline(c.deadline)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, nil
		case err != nil:
			return nil, err
		}
	}
	b, _ := c.br.Peek(min(c.br.Buffered(), 60))
	return b, nil
}

// failure is the finding for an answer to GET path that could not be read:
// a breach of the headers rule when its headers had no end, else of rule.
func failure(rule, what, path string, err error) Finding {
	switch {
	case errors.Is(err, errHeaders):
		return breach(RuleHeaders, "the answer to GET %s: %v", path, err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return breach(rule, "%s GET %s got no answer: the server closed the connection", what, path)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return breach(rule, "%s GET %s got no answer in time", what, path)
	}
	var be *bodyError
	if errors.As(err, &be) {
		return breach(rule, "the answer to %s GET %s: %v", what, path, err)
	}
	return breach(rule, "%s GET %s got no answer: %v", what, path, err)
}

// expected is what is wrong with an answer by a's expectation.
func (a Ask) expected(resp *http.Response, body []byte) []string {
	subst := a.Subst
	if subst == nil {
		subst = func(s string) string { return s }
	}
	problems, _ := verify.Check(a.Expect, verify.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, subst)
	return problems
}

// afterward describes what the server sent after an answer, unasked.
func afterward(resp *http.Response, extra []byte) string {
	switch {
	case bytes.HasPrefix(extra, []byte("HTTP/")):
		return fmt.Sprintf("an answer nobody asked for followed it (%q)", clip(string(extra), 60))
	case resp.ContentLength >= 0:
		return fmt.Sprintf("more bytes than its Content-Length of %d followed it (%q): a Content-Length shorter than the body sent", resp.ContentLength, clip(string(extra), 60))
	}
	return fmt.Sprintf("bytes nobody asked for followed its chunked body's end (%q)", clip(string(extra), 60))
}

// KeepAlive asks a's path twice on one connection: both answers must be
// as a's expectation says, neither may announce the connection's close or
// be followed by bytes nobody asked for, and the server must not close
// the connection.
func KeepAlive(ctx context.Context, dial Dialer, a Ask, timeout time.Duration) Finding {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx)
	if err != nil {
		return breach(RuleKeepAlive, "could not connect: %v", err)
	}
	defer conn.Close()
	c := newClient(conn, a.Host, time.Now().Add(timeout))
	for _, nth := range []string{"a first", "a second"} {
		resp, body, err := c.ask(a.Path, true)
		if err != nil {
			return failure(RuleKeepAlive, nth, a.Path, err)
		}
		if resp.Close {
			how := "Connection: close"
			if resp.ProtoMajor == 1 && resp.ProtoMinor == 0 {
				how = "HTTP/1.0 without keep-alive"
			}
			return breach(RuleKeepAlive, "the answer to %s GET %s over HTTP/1.1 said %s: requests would cost new connections", nth, a.Path, how)
		}
		extra, err := c.unasked()
		switch {
		case errors.Is(err, io.EOF):
			return breach(RuleKeepAlive, "the server closed the connection after the answer to %s GET %s, without saying so (no Connection: close)", nth, a.Path)
		case err != nil:
			return breach(RuleKeepAlive, "after the answer to %s GET %s: %v", nth, a.Path, err)
		case len(extra) > 0:
			return breach(RuleKeepAlive, "the answer to %s GET %s: %s", nth, a.Path, afterward(resp, extra))
		}
		// Checked last: bytes beyond a short Content-Length explain a
		// wrong body better than the body does.
		if problems := a.expected(resp, body); len(problems) > 0 {
			return breach(RuleKeepAlive, "the answer to %s GET %s on one connection: %s", nth, a.Path, strings.Join(problems, "; "))
		}
	}
	return pass(RuleKeepAlive, "two requests answered on one connection as expected, nothing unasked after them")
}

// Concurrency opens n connections at once, asks a's path on each and
// waits, with all of them open, until each is answered or timeout passes.
// Each answer's status must be the one expected.
func Concurrency(ctx context.Context, dial Dialer, a Ask, n int, timeout time.Duration) Finding {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	errs := make([]error, n)
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			conn, err := dial(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			conns[i] = conn // closed once every one is done: all stay open
			resp, _, err := newClient(conn, a.Host, deadline).ask(a.Path, false)
			switch {
			case err != nil:
				errs[i] = err
			case resp.StatusCode != a.Expect.Status:
				errs[i] = fmt.Errorf("status %d, want %d", resp.StatusCode, a.Expect.Status)
			}
		})
	}
	wg.Wait()
	var failed []error
	for i := range n {
		if conns[i] != nil {
			conns[i].Close()
		}
		if errs[i] != nil {
			failed = append(failed, errs[i])
		}
	}
	for _, err := range failed {
		if errors.Is(err, errHeaders) {
			return failure(RuleConcurrency, "", a.Path, err)
		}
	}
	if len(failed) > 0 {
		return breach(RuleConcurrency, "%d of %d connections opened at once were answered as expected within %s while all stayed open (one connection served at a time, or a listen backlog shorter than the connections?); first failure: %v",
			n-len(failed), n, timeout, failed[0])
	}
	return pass(RuleConcurrency, "%d connections opened at once, all answered", n)
}
