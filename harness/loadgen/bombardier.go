// Package loadgen owns the load generator, bombardier: the command line the
// harness runs for a trial, and the parsing of its JSON report into a Trial.
package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Spec is one bombardier run.
type Spec struct {
	URL         string
	Connections int
	Duration    time.Duration // exclusive with Requests
	Requests    int64
	Timeout     time.Duration
}

// Args is bombardier's command line for s: latencies on (-l), no progress
// bar (-p r prints only the result), JSON output (-o j).
func Args(s Spec) []string {
	args := []string{"-c", strconv.Itoa(s.Connections), "-t", s.Timeout.String(), "-l", "-p", "r", "-o", "j"}
	if s.Requests > 0 {
		args = append(args, "-n", strconv.FormatInt(s.Requests, 10))
	} else {
		args = append(args, "-d", s.Duration.String())
	}
	return append(args, s.URL)
}

// Result is what one bombardier run measured.
type Result struct {
	RPS         float64          `json:"rps"`
	Requests    int64            `json:"requests"` // responses received, any status
	Errors      int64            `json:"errors"`   // requests that got no response
	ErrorKinds  map[string]int64 `json:"error_kinds,omitempty"`
	StatusCodes map[string]int64 `json:"status_codes"`
	LatencyMS   Latency          `json:"latency_ms"`
	BytesRead   int64            `json:"bytes_read"`
	Seconds     float64          `json:"seconds"`
}

// Latency percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// report mirrors bombardier 1.2's JSON template. Latencies are in µs.
type report struct {
	Result struct {
		BytesRead        int64   `json:"bytesRead"`
		TimeTakenSeconds float64 `json:"timeTakenSeconds"`
		Req1xx           int64   `json:"req1xx"`
		Req2xx           int64   `json:"req2xx"`
		Req3xx           int64   `json:"req3xx"`
		Req4xx           int64   `json:"req4xx"`
		Req5xx           int64   `json:"req5xx"`
		Others           int64   `json:"others"`
		Errors           []struct {
			Description string `json:"description"`
			Count       int64  `json:"count"`
		} `json:"errors"`
		Latency struct {
			Max         float64            `json:"max"`
			Percentiles map[string]float64 `json:"percentiles"`
		} `json:"latency"`
	} `json:"result"`
}

// Parse reads bombardier's -o j output. Anything printed before the JSON
// object (bombardier prints nothing else with -p r, but a wrapper might) is
// skipped. RPS is responses over time taken: bombardier's own rps mean is
// averaged over sampling ticks and is not used.
func Parse(out []byte) (Result, error) {
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return Result{}, fmt.Errorf("bombardier printed no JSON: %q", truncate(out, 300))
	}
	var r report
	if err := json.Unmarshal(out[i:], &r); err != nil {
		return Result{}, fmt.Errorf("bombardier JSON: %w (output %q)", err, truncate(out, 300))
	}
	res := r.Result
	if res.TimeTakenSeconds <= 0 {
		return Result{}, fmt.Errorf("bombardier reported no time taken: %q", truncate(out, 300))
	}
	codes := map[string]int64{}
	for k, v := range map[string]int64{"1xx": res.Req1xx, "2xx": res.Req2xx, "3xx": res.Req3xx, "4xx": res.Req4xx, "5xx": res.Req5xx, "others": res.Others} {
		if v != 0 {
			codes[k] = v
		}
	}
	responses := res.Req1xx + res.Req2xx + res.Req3xx + res.Req4xx + res.Req5xx
	out2 := Result{
		Requests:    responses,
		RPS:         float64(responses) / res.TimeTakenSeconds,
		StatusCodes: codes,
		BytesRead:   res.BytesRead,
		Seconds:     res.TimeTakenSeconds,
	}
	for _, e := range res.Errors {
		if out2.ErrorKinds == nil {
			out2.ErrorKinds = map[string]int64{}
		}
		out2.ErrorKinds[e.Description] += e.Count
		out2.Errors += e.Count
	}
	// "others" counts responses bombardier could not classify and requests
	// that failed; failed requests are already in Errors.
	pct := func(k string) float64 { return res.Latency.Percentiles[k] / 1000 }
	out2.LatencyMS = Latency{P50: pct("50"), P75: pct("75"), P90: pct("90"), P95: pct("95"), P99: pct("99"), Max: res.Latency.Max / 1000}
	if len(res.Latency.Percentiles) == 0 && responses > 0 {
		return out2, fmt.Errorf("bombardier reported no latency percentiles (was -l passed?)")
	}
	return out2, nil
}

// ErrorSummary renders error kinds most frequent first, for a reason text.
func (r Result) ErrorSummary() string {
	type kv struct {
		k string
		v int64
	}
	var kinds []kv
	for k, v := range r.ErrorKinds {
		kinds = append(kinds, kv{k, v})
	}
	sort.Slice(kinds, func(i, j int) bool {
		return kinds[i].v > kinds[j].v || kinds[i].v == kinds[j].v && kinds[i].k < kinds[j].k
	})
	var b bytes.Buffer
	for i, e := range kinds {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d× %s", e.v, e.k)
	}
	return b.String()
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
