package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/webbench/webbench/harness/latency"
)

// OpenLoop is the Tool for the harness's open-loop generator
// (docker/loadgen/openloop, after wrk2's model): for fixed-rate cells, it
// times each request from its intended send time, so a server's stalls are
// measured instead of omitted, and reports the sends that fell late and
// those never sent.
type OpenLoop struct{}

var _ Tool = OpenLoop{}

func (OpenLoop) Name() string { return "openloop" }

func (OpenLoop) VersionFile() string { return "/usr/local/bin/openloop.version" }

// Unsupported: an open-loop generator needs a rate, and runs for a duration.
func (OpenLoop) Unsupported(s Spec) string {
	if why := unspoken("openloop", s, "http1", "https"); why != "" {
		return why
	}
	if why := unpipelined("openloop", s); why != "" {
		return why
	}
	switch {
	case len(s.Headers) > 0:
		return "openloop sends no request headers of a scenario's (headers)"
	case s.Rate == 0:
		return "openloop needs a fixed rate (rate): it holds a schedule of sends"
	case s.Requests > 0:
		return "openloop runs for a duration, not a request count (load.requests)"
	}
	return ""
}

func (OpenLoop) Command(s Spec) []string {
	args := []string{"openloop", "-c", strconv.Itoa(s.Connections), "-rate", strconv.Itoa(s.Rate), "-d", s.Duration.String(),
		"-timeout", s.Timeout.String()}
	if s.Close {
		args = append(args, "-close")
	}
	return append(args, s.URL)
}

// openLoopReport mirrors the generator's JSON report.
type openLoopReport struct {
	Seconds    float64            `json:"seconds"`
	Statuses   map[string]int64   `json:"statuses"`
	Errors     map[string]int64   `json:"errors"`
	Bytes      int64              `json:"bytes"`
	Scheduled  int64              `json:"scheduled"`
	Sent       int64              `json:"sent"`
	Late       int64              `json:"late"`
	LateMeanMS float64            `json:"late_mean_ms"`
	LateMaxMS  float64            `json:"late_max_ms"`
	Unsent     int64              `json:"unsent"`
	LatencyUS  map[string]float64 `json:"latency_us"`
	Histogram  string             `json:"histogram"`
}

// Parse reads the report: answers of the expected class are good, other
// classes and requests without an answer are errors by kind, and a send
// scheduled but never made is an error too ("unsent"): the load asked was
// not offered. Latencies are from intended send times.
func (OpenLoop) Parse(out []byte, s Spec) (Result, error) {
	var r openLoopReport
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		return Result{}, fmt.Errorf("openloop report: %w (%q)", err, truncate(out, 300))
	}
	if r.Seconds <= 0 {
		return Result{}, fmt.Errorf("openloop reported no duration: %q", truncate(out, 300))
	}
	res := Result{StatusCodes: map[string]int64{}, BytesRead: r.Bytes, Seconds: r.Seconds,
		OpenLoop: &OpenLoopFigures{Scheduled: r.Scheduled, Sent: r.Sent, Late: r.Late, LateMeanMS: r.LateMeanMS, LateMaxMS: r.LateMaxMS, Unsent: r.Unsent, Histogram: r.Histogram}}
	kinds := map[string]int64{}
	for code, n := range r.Statuses {
		c, err := strconv.Atoi(code)
		if err != nil {
			return Result{}, fmt.Errorf("openloop report: status %q", code)
		}
		res.StatusCodes[Class(c)] += n
		if Class(c) != Class(s.Expect) {
			kinds[Class(c)] += n
		}
	}
	for k, n := range r.Errors {
		kinds[k] += n
	}
	if r.Unsent > 0 {
		kinds[Unsent] = r.Unsent
	}
	res.Requests = res.StatusCodes[Class(s.Expect)]
	for _, n := range kinds {
		res.Errors += n
	}
	if len(kinds) > 0 {
		res.ErrorKinds = kinds
	}
	res.RPS = float64(res.Requests) / res.Seconds
	if total := res.Requests + res.Errors; total > 0 {
		res.ErrorRate = float64(res.Errors) / float64(total)
	}
	ms := func(k string) float64 { return r.LatencyUS[k] / 1000 }
	res.LatencyMS = latency.Latency{Mean: ms("mean"), P50: ms("50"), P75: ms("75"), P90: ms("90"), P95: ms("95"), P99: ms("99"),
		P999: ms("99.9"), P9999: ms("99.99"), Max: ms("max")}
	return res, nil
}
