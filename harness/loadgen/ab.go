package loadgen

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/latency"
)

// Ab is the Tool for ApacheBench (Debian's apache2-utils): one process on
// one core, a request count, keep-alive with -k, HTTP/1.0 closes without.
type Ab struct{}

var _ Tool = Ab{}

func (Ab) Name() string { return "ab" }

func (Ab) VersionFile() string { return "/usr/local/share/webbench/ab.version" }

// Unsupported: ab runs a request count (its time limit stops at 50,000
// requests), as fast as it can, in one process, and tells only 2xx from
// the rest.
func (Ab) Unsupported(s Spec) string {
	if why := unspoken("ab", s, "http1"); why != "" {
		return why
	}
	if why := unpipelined("ab", s); why != "" {
		return why
	}
	switch {
	case s.Requests == 0:
		return "ab measures a request count (load.requests): its time limit stops at 50,000 requests"
	case s.Rate > 0:
		return "ab has no fixed rate (rate)"
	case threads(s) > 1:
		return fmt.Sprintf("ab runs one process on one core: load.loadgen_cpus %d", threads(s))
	case Class(s.Expect) != "2xx":
		return fmt.Sprintf("ab tells only 2xx answers from the rest: the scenario expects %d", s.Expect)
	case s.Timeout%time.Second != 0:
		return fmt.Sprintf("ab takes whole seconds: load.timeout %s", s.Timeout)
	}
	return ""
}

// AsksHTTP10: ab writes HTTP/1.0 request lines, so servers frame its
// answers otherwise than those to an HTTP/1.1 request.
func (Ab) AsksHTTP10() bool { return true }

// Command is ab with the count and connections of s, -k with keep-alive.
func (Ab) Command(s Spec) []string {
	args := []string{"ab", "-q", "-c", strconv.Itoa(s.Connections), "-n", strconv.FormatInt(s.Requests, 10),
		"-s", strconv.Itoa(int(s.Timeout / time.Second))}
	if !s.Close {
		args = append(args, "-k")
	}
	args = append(args, headerArgs(s)...)
	return append(args, s.URL)
}

var (
	abTaken    = regexp.MustCompile(`(?m)^Time taken for tests:\s+([0-9.]+) seconds`)
	abComplete = regexp.MustCompile(`(?m)^Complete requests:\s+(\d+)`)
	abFailed   = regexp.MustCompile(`(?m)^\s+\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)`)
	abNon2xx   = regexp.MustCompile(`(?m)^Non-2xx responses:\s+(\d+)`)
	abBytes    = regexp.MustCompile(`(?m)^Total transferred:\s+(\d+) bytes`)
	abTotal    = regexp.MustCompile(`(?m)^Total:\s+\d+\s+(\d+)`)
	abPct      = regexp.MustCompile(`(?m)^\s+(\d+)%\s+(\d+)`)
)

// Parse reads ab's report. Its "Failed requests" (connect, receive, a
// length other than the first answer's, exceptions) and its "Non-2xx
// responses" are errors by kind; good answers are the complete requests
// less those. A length failure means the answer differed from the first:
// if the first answer was not a good one, good answers count as errors
// (the harness verifies an answer before load, so it rarely is). Its
// latencies are whole milliseconds: under 1 ms reads 0, so absent.
func (Ab) Parse(out []byte, s Spec) (Result, error) {
	text := string(out)
	taken, complete := abTaken.FindStringSubmatch(text), abComplete.FindStringSubmatch(text)
	if taken == nil || complete == nil {
		return Result{}, fmt.Errorf("ab printed no report: %q", truncate(out, 300))
	}
	n := func(x string) int64 { v, _ := strconv.ParseInt(x, 10, 64); return v }
	res := Result{StatusCodes: map[string]int64{}}
	res.Seconds, _ = strconv.ParseFloat(taken[1], 64)
	if res.Seconds <= 0 {
		return Result{}, fmt.Errorf("ab reported no time taken: %q", taken[0])
	}
	kinds := map[string]int64{}
	if m := abNon2xx.FindStringSubmatch(text); m != nil && n(m[1]) > 0 {
		kinds["non-2xx"] = n(m[1])
	}
	if m := abFailed.FindStringSubmatch(text); m != nil {
		for i, k := range []string{"connect", "receive", "length", "exceptions"} {
			if v := n(m[i+1]); v > 0 {
				kinds[k] = v
			}
		}
		// ab counts a non-2xx answer whose length differs from the first
		// answer's under both: its length failures are taken to be those
		// answers first, so that no answer is an error twice.
		if l := kinds["length"] - kinds["non-2xx"]; l > 0 {
			kinds["length"] = l
		} else {
			delete(kinds, "length")
		}
	}
	for _, v := range kinds {
		res.Errors += v
	}
	res.Requests = max(n(complete[1])-res.Errors, 0)
	res.StatusCodes["2xx"] = n(complete[1]) - kinds["non-2xx"]
	if kinds["non-2xx"] > 0 {
		res.StatusCodes["non-2xx"] = kinds["non-2xx"]
	}
	if len(kinds) > 0 {
		res.ErrorKinds = kinds
	}
	res.RPS = float64(res.Requests) / res.Seconds
	if total := res.Requests + res.Errors; total > 0 {
		res.ErrorRate = float64(res.Errors) / float64(total)
	}
	if m := abBytes.FindStringSubmatch(text); m != nil {
		res.BytesRead = n(m[1])
	}
	pct := map[string]float64{}
	for _, m := range abPct.FindAllStringSubmatch(text, -1) {
		pct[m[1]] = float64(n(m[2]))
	}
	res.LatencyMS = latency.Latency{P50: pct["50"], P75: pct["75"], P90: pct["90"], P95: pct["95"], P99: pct["99"], Max: pct["100"]}
	if m := abTotal.FindStringSubmatch(text); m != nil {
		res.LatencyMS.Mean = float64(n(m[1]))
	}
	return res, nil
}

// KeepAliveRefused says why ab -k would not keep a connection alive with a
// server that answered its HTTP/1.0 keep-alive request (the probe's,
// asked as ab asks) with header h, "" when it would. ab keeps a
// connection only when the answer's headers carry "Keep-Alive" or
// "keep-alive"; otherwise it reads to the connection's close, and a server
// that keeps the connection open anyway (Python's http.server at
// HTTP/1.1) leaves ab waiting until its timeout (apr_pollset_poll, 70007).
// The runner calls it after the probe of an ab cell with keep-alive on,
// and skips the cell with this reason.
func (Ab) KeepAliveRefused(h http.Header) string {
	for k, vs := range h {
		if abKeepAlive(k) {
			return ""
		}
		for _, v := range vs {
			if abKeepAlive(v) {
				return ""
			}
		}
	}
	return "the target answered ab's HTTP/1.0 keep-alive request without a Keep-Alive header: ab -k would wait for a close that may never come (set keepalive: false for ab, or answer Connection: keep-alive)"
}

// abKeepAlive is ab's own test: a case-sensitive search for either
// spelling.
func abKeepAlive(s string) bool {
	return strings.Contains(s, "Keep-Alive") || strings.Contains(s, "keep-alive")
}
