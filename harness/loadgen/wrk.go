package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// WrkScript is where the load generator image keeps the Lua script that
// makes wrk report responses by status (docker/loadgen/wrk/report.lua):
// wrk's own summary only says how many were not 2xx or 3xx.
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
// each need a connection.
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
	}
	return ""
}

// Command is wrk with one thread per core, the connections, duration and
// per-request timeout of s, and the reporting script.
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
	return append(args, s.URL)
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
	} `json:"latency_us"`
}

// Parse reads the script's line of wrk's output. Responses of the expected
// class are good; other classes and wrk's socket errors (connect, read,
// write, timeout) are errors by kind. wrk's "status" error count is the
// non-2xx/3xx responses, already counted by class, so it is not added.
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
	res.LatencyMS = Latency{Mean: ms(r.LatencyUS.Mean), P50: ms(p["50"]), P75: ms(p["75"]), P90: ms(p["90"]), P95: ms(p["95"]),
		P99: ms(p["99"]), P999: ms(p["99.9"]), Max: ms(r.LatencyUS.Max)}
	return res, nil
}
