package loadgen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/latency"
)

// H2load is the Tool for h2load (Debian's nghttp2-client), here over
// HTTP/1.1 (--h1), one thread per core of the generator.
type H2load struct{}

var _ Tool = H2load{}

func (H2load) Name() string { return "h2load" }

func (H2load) VersionFile() string { return "/usr/local/share/webbench/h2load.version" }

// Unsupported: h2load keeps connections alive and sends no Connection:
// close of its own accord; its -r paces new connections, not requests.
func (H2load) Unsupported(s Spec) string {
	switch {
	case s.Close && (protocol(s) == "h2" || protocol(s) == "h2c"):
		return "HTTP/2 has no Connection: close (keepalive: false)"
	case s.Close:
		return "h2load cannot send Connection: close per request (keepalive: false)"
	case s.Rate > 0:
		return "h2load has no fixed request rate (rate; its -r paces connections)"
	case s.Connections < threads(s):
		return fmt.Sprintf("h2load needs a client per thread: %d connections, %d threads", s.Connections, threads(s))
	}
	return ""
}

// Command is h2load with the connections, count or duration of s, over
// HTTP/1.1 (--h1; over TLS it then offers ALPN http/1.1 only) for http1
// and https, over HTTP/2 for h2 (ALPN h2) and h2c (prior knowledge, an
// http:// URL), one stream at a time per connection (-m 1, its default):
// c connections carry c requests at once, as with the other tools. A
// pipelined spec sets -m to its depth: that many streams at once on each
// HTTP/2 connection, or that many HTTP/1.1 requests pipelined on each
// connection (h2load's own meaning of -m over HTTP/1.1). Each answer is
// one request of its count. The request timeout is its inactivity timeout
// (-N): a connection that receives nothing that long is dropped and its
// requests fail.
func (H2load) Command(s Spec) []string {
	args := []string{"h2load"}
	if p := protocol(s); p == "http1" || p == "https" {
		args = append(args, "--h1")
	}
	args = append(args, "-t", strconv.Itoa(threads(s)), "-c", strconv.Itoa(s.Connections),
		"-N", strconv.FormatFloat(s.Timeout.Seconds(), 'f', -1, 64))
	if depth(s) > 1 {
		args = append(args, "-m", strconv.Itoa(depth(s)))
	}
	args = append(args, headerArgs(s)...)
	if s.Requests > 0 {
		args = append(args, "-n", strconv.FormatInt(s.Requests, 10))
	} else {
		args = append(args, "-D", strconv.FormatFloat(s.Duration.Seconds(), 'f', -1, 64))
	}
	return append(args, s.URL)
}

var (
	h2Finished = regexp.MustCompile(`(?m)^finished in ([0-9.]+)(us|ms|s),`)
	h2Requests = regexp.MustCompile(`(?m)^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Codes    = regexp.MustCompile(`(?m)^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
	h2Traffic  = regexp.MustCompile(`(?m)^traffic: .*?\((\d+)\) total`)
	h2Time     = regexp.MustCompile(`(?m)^time for request:\s+([0-9.]+)(us|ms|s)\s+([0-9.]+)(us|ms|s)\s+([0-9.]+)(us|ms|s)`)
)

// h2ms reads an h2load figure in its unit as milliseconds.
func h2ms(v, unit string) float64 {
	f, _ := strconv.ParseFloat(v, 64)
	switch unit {
	case "us":
		return f / 1000
	case "s":
		return f * 1000
	}
	return f
}

// Parse reads h2load's summary. Responses of the expected class are good;
// other classes, requests that errored without an answer and timeouts are
// errors by kind. h2load reports no latency percentiles: only the mean and
// the maximum are recorded (the others stay absent).
func (H2load) Parse(out []byte, s Spec) (Result, error) {
	text := string(out)
	fin, req, codes := h2Finished.FindStringSubmatch(text), h2Requests.FindStringSubmatch(text), h2Codes.FindStringSubmatch(text)
	if fin == nil || req == nil || codes == nil {
		return Result{}, fmt.Errorf("h2load printed no summary: %q", truncate(out, 300))
	}
	n := func(x string) int64 { v, _ := strconv.ParseInt(x, 10, 64); return v }
	res := Result{Seconds: h2ms(fin[1], fin[2]) / 1000, StatusCodes: map[string]int64{}}
	kinds := map[string]int64{}
	for i, class := range []string{"2xx", "3xx", "4xx", "5xx"} {
		if v := n(codes[i+1]); v > 0 {
			res.StatusCodes[class] = v
			if class != Class(s.Expect) {
				kinds[class] += v
			}
		}
	}
	res.Requests = res.StatusCodes[Class(s.Expect)]
	// errored counts requests that ended without an answer, timeouts among them.
	if timeouts, errored := n(req[7]), n(req[6]); errored > 0 || timeouts > 0 {
		if timeouts > 0 {
			kinds["timeout"] = timeouts
		}
		if rest := errored - timeouts; rest > 0 {
			kinds["errored"] = rest
		}
	}
	for _, v := range kinds {
		res.Errors += v
	}
	if len(kinds) > 0 {
		res.ErrorKinds = kinds
	}
	if m := h2Traffic.FindStringSubmatch(text); m != nil {
		res.BytesRead = n(m[1])
	}
	if res.Seconds <= 0 {
		return Result{}, fmt.Errorf("h2load reported no time taken: %q", strings.TrimSpace(fin[0]))
	}
	res.RPS = float64(res.Requests) / res.Seconds
	if total := res.Requests + res.Errors; total > 0 {
		res.ErrorRate = float64(res.Errors) / float64(total)
	}
	if m := h2Time.FindStringSubmatch(text); m != nil {
		res.LatencyMS = latency.Latency{Max: h2ms(m[3], m[4]), Mean: h2ms(m[5], m[6])}
	}
	return res, nil
}
