package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/latency"
)

// WrkScript is where the load generator image keeps the Lua script that
// makes wrk report responses by status and its whole latency distribution
// (docker/loadgen/wrk/report.lua), and pipeline when asked: wrk's own
// summary only says how many answers were not 2xx or 3xx, and gives six
// percentiles.
const WrkScript = "/usr/local/share/webbench/report.lua"

// wrkMarker starts the line the script prints.
const wrkMarker = "WEBBENCH-JSON "

// Wrk is the Tool for wrk (Debian's package), with one thread per core of
// the generator.
type Wrk struct {
	// Script overrides WrkScript (tests run wrk outside the image).
	Script string
}

var _ Tool = Wrk{}

func (Wrk) Name() string { return "wrk" }

func (Wrk) VersionFile() string { return "/usr/local/share/webbench/wrk.version" }

// Unsupported: wrk runs for a duration, as fast as it can; its threads
// each need a connection; it pipelines only on a connection kept alive.
func (Wrk) Unsupported(s Spec) string {
	if why := unspoken("wrk", s, "http1", "https"); why != "" {
		return why
	}
	switch {
	case s.Requests > 0:
		return "wrk has no request count (load.requests): it runs for a duration"
	case s.Rate > 0:
		return "wrk has no fixed rate (rate; that is wrk2)"
	case s.Connections < threads(s):
		return fmt.Sprintf("wrk needs a connection per thread: %d connections, %d threads", s.Connections, threads(s))
	case s.Duration%time.Second != 0 || s.Timeout%time.Second != 0:
		return fmt.Sprintf("wrk takes whole seconds: load.duration %s, load.timeout %s", s.Duration, s.Timeout)
	case s.Close && depth(s) > 1:
		return fmt.Sprintf("wrk pipelines (scenario pipeline: %d) only with keep-alive: keepalive false closes the connection after one answer", depth(s))
	}
	return ""
}

// Command is wrk with one thread per core, the connections, duration and
// per-request timeout of s, and the reporting script; a pipelined spec
// passes the script its depth (after --), and the script then writes that
// many requests at once on each connection. wrk counts each answer as a
// request, but times a batch once, from its write to its last answer.
func (w Wrk) Command(s Spec) []string {
	script := w.Script
	if script == "" {
		script = WrkScript
	}
	secs := func(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + "s" } // wrk reads no fractions
	args := []string{"wrk", "-t", strconv.Itoa(threads(s)), "-c", strconv.Itoa(s.Connections), "-d", secs(s.Duration),
		"--timeout", secs(s.Timeout), "-s", script}
	if s.Close {
		args = append(args, "-H", "Connection: close")
	}
	args = append(args, headerArgs(s)...)
	args = append(args, s.URL)
	if depth(s) > 1 {
		args = append(args, "--", strconv.Itoa(depth(s)))
	}
	return args
}

// wrkReport is what report.lua prints. Latencies are in µs.
type wrkReport struct {
	DurationUS float64          `json:"duration_us"`
	Requests   int64            `json:"requests"`
	Bytes      int64            `json:"bytes"`
	Errors     map[string]int64 `json:"errors"` // connect, read, write, status, timeout
	Statuses   map[string]int64 `json:"statuses"`
	LatencyUS  struct {
		Mean        float64            `json:"mean"`
		Max         float64            `json:"max"`
		Percentiles map[string]float64 `json:"percentiles"`
		// Histogram is every latency wrk recorded, as value, count, value,
		// count…: wrk keeps each microsecond's count, so this is the whole
		// distribution.
		Histogram []int64 `json:"histogram"`
	} `json:"latency_us"`
}

// Parse reads the script's line of wrk's output. Responses of the expected
// class are good; other classes and wrk's socket errors (connect, read,
// write, timeout) are errors by kind. wrk's "status" error count is the
// non-2xx/3xx responses, already counted by class, so it is not added.
// Where the script printed wrk's histogram, the mean and percentiles are
// read from the latencies wrk measured (wrkMeasured), which s.Connections
// lets it tell from those wrk added; otherwise they are wrk's own.
func (Wrk) Parse(out []byte, s Spec) (Result, error) {
	i := bytes.Index(out, []byte(wrkMarker))
	if i < 0 {
		return Result{}, fmt.Errorf("wrk printed no report (was the script given?): %q", truncate(out, 300))
	}
	line := out[i+len(wrkMarker):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var r wrkReport
	if err := json.Unmarshal(line, &r); err != nil {
		return Result{}, fmt.Errorf("wrk report: %w (%q)", err, truncate(line, 300))
	}
	if r.DurationUS <= 0 {
		return Result{}, fmt.Errorf("wrk reported no duration: %q", truncate(line, 300))
	}
	codes := map[string]int64{}
	for code, n := range r.Statuses {
		c, err := strconv.Atoi(code)
		if err != nil {
			return Result{}, fmt.Errorf("wrk report: status %q", code)
		}
		codes[Class(c)] += n
	}
	kinds := map[string]int64{}
	for k, n := range codes {
		if k != Class(s.Expect) {
			kinds[k] += n
		}
	}
	for _, k := range []string{"connect", "read", "write", "timeout"} {
		if n := r.Errors[k]; n > 0 {
			kinds[k] += n
		}
	}
	res := Result{Requests: codes[Class(s.Expect)], StatusCodes: codes, BytesRead: r.Bytes, Seconds: r.DurationUS / 1e6}
	res.RPS = float64(res.Requests) / res.Seconds
	for _, n := range kinds {
		res.Errors += n
	}
	if len(kinds) > 0 {
		res.ErrorKinds = kinds
	}
	if total := res.Requests + res.Errors; total > 0 {
		res.ErrorRate = float64(res.Errors) / float64(total)
	}
	ms := func(us float64) float64 { return us / 1000 }
	p := r.LatencyUS.Percentiles
	res.LatencyMS = latency.Latency{Mean: ms(r.LatencyUS.Mean), P50: ms(p["50"]), P75: ms(p["75"]), P90: ms(p["90"]), P95: ms(p["95"]),
		P99: ms(p["99"]), P999: ms(p["99.9"]), Max: ms(r.LatencyUS.Max)}
	var err error
	if res.Distribution, err = wrkMeasured(r, s.Connections); err != nil || res.Distribution == nil {
		return res, err
	}
	h := res.Distribution
	at := func(q float64) float64 { return ms(float64(h.ValueAtQuantile(q))) }
	res.LatencyMS = latency.Latency{Mean: ms(h.Mean()), P50: at(50), P75: at(75), P90: at(90), P95: at(95), P99: at(99), P999: at(99.9),
		Max: ms(r.LatencyUS.Max)}
	return res, nil
}

// wrkMeasured is the latencies wrk measured (µs), from the histogram the
// script printed, in an HDR histogram at the open-loop generator's
// precision (3 significant digits) from 1 µs to WrkHistogramMax; nil when
// the script printed none (an older script's report, or no answer).
//
// Before its script sees them, wrk adds latencies it did not measure
// (stats_correct, its coordinated-omission guess): for each latency n, one
// more at each n − k·e above e, where e is the run's microseconds over its
// answers per connection. Those it adds below its smallest measured latency
// its percentile walk never reaches (pipelined, p95 and above then read 0).
// Since each value m above e gained exactly the count then held at m + e,
// the measured count at m is the printed count at m less that at m + e,
// and the synthetic ones are taken out exactly.
func wrkMeasured(r wrkReport, conns int) (*hdrhistogram.Histogram, error) {
	pairs := r.LatencyUS.Histogram
	if len(pairs) == 0 {
		return nil, nil
	}
	if len(pairs)%2 != 0 || conns <= 0 {
		return nil, fmt.Errorf("wrk report: a latency histogram of %d numbers for %d connections, not value, count pairs", len(pairs), conns)
	}
	printed := map[int64]int64{}
	for i := 0; i < len(pairs); i += 2 {
		printed[pairs[i]] += pairs[i+1]
	}
	var e int64 // wrk's interval; 0 where it added nothing
	if per := r.Requests / int64(conns); per > 0 {
		e = int64(r.DurationUS) / per
	}
	h := hdrhistogram.New(1, WrkHistogramMax, 3)
	for v, n := range printed {
		if e > 0 && v > e {
			n -= printed[v+e]
		}
		if v < 0 || n < 0 || h.RecordValues(v, n) != nil {
			return nil, fmt.Errorf("wrk report: latency %d µs ×%d is not one wrk measured (0 µs to %d µs)", v, n, int64(WrkHistogramMax))
		}
	}
	return h, nil
}

// WrkHistogramMax is the longest latency (µs) a wrk distribution holds:
// load.timeout's longest, an hour (results.MaxHistogramValue), past which
// wrk counts a timeout instead of a latency.
const WrkHistogramMax = 3_600_000_000
