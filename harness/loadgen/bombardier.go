package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/latency"
)

// Bombardier is the Tool for bombardier (github.com/codesenberg/bombardier),
// built from the version go.mod pins.
type Bombardier struct{}

var _ Tool = Bombardier{}

func (Bombardier) Name() string { return "bombardier" }

func (Bombardier) VersionFile() string { return "/usr/local/bin/bombardier.version" }

// Unsupported: bombardier's rate limiter spreads requests evenly only at
// multiples of 100 requests/s (a sweep's other rates).
func (Bombardier) Unsupported(s Spec) string {
	if why := unspoken("bombardier", s, "http1", "https"); why != "" {
		return why + "; h2c it cannot (bombardier #90), and HTTP/2 is measured with h2load"
	}
	if why := unpipelined("bombardier", s); why != "" {
		return why
	}
	if s.Rate%100 != 0 {
		return fmt.Sprintf("bombardier holds a rate evenly only at multiples of 100 requests/s, not %d", s.Rate)
	}
	return ""
}

// Command is bombardier's command line for s: latencies on (-l), no
// progress bar (-p r prints only the result), JSON output (-o j).
func (Bombardier) Command(s Spec) []string {
	args := []string{"bombardier", "-c", strconv.Itoa(s.Connections), "-t", s.Timeout.String(), "-l", "-p", "r", "-o", "j"}
	if s.Close {
		args = append(args, "-H", "Connection: close")
	}
	args = append(args, headerArgs(s)...)
	if s.Rate > 0 {
		args = append(args, "-r", strconv.Itoa(s.Rate))
	}
	if s.Requests > 0 {
		args = append(args, "-n", strconv.FormatInt(s.Requests, 10))
	} else {
		args = append(args, "-d", s.Duration.String())
	}
	return append(args, s.URL)
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
			Mean        float64            `json:"mean"`
			Max         float64            `json:"max"`
			Percentiles map[string]float64 `json:"percentiles"`
		} `json:"latency"`
	} `json:"result"`
}

// Parse reads bombardier's -o j output of a run of s: only responses of
// the class of the status s expects count. Anything printed before the JSON object (bombardier prints
// nothing else with -p r, but a wrapper might) is skipped. RPS is good
// responses over time taken: bombardier's own rps mean is averaged over
// sampling ticks and is not used.
func (Bombardier) Parse(out []byte, s Spec) (Result, error) {
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
	// bombardier counts a request that got no response under "others" as
	// well as in its errors; what is left of "others" got a response it
	// could not classify.
	kinds := map[string]int64{}
	var failed int64
	for _, e := range res.Errors {
		kinds[errorKind(e.Description)] += e.Count
		failed += e.Count
	}
	codes := map[string]int64{}
	for k, v := range map[string]int64{"1xx": res.Req1xx, "2xx": res.Req2xx, "3xx": res.Req3xx, "4xx": res.Req4xx,
		"5xx": res.Req5xx, "others": max(res.Others-failed, 0)} {
		if v == 0 {
			continue
		}
		codes[k] = v
		if k != Class(s.Expect) {
			kinds[k] += v
		}
	}
	good := codes[Class(s.Expect)]
	out2 := Result{Requests: good, RPS: float64(good) / res.TimeTakenSeconds, StatusCodes: codes,
		BytesRead: res.BytesRead, Seconds: res.TimeTakenSeconds}
	for _, v := range kinds {
		out2.Errors += v
	}
	if len(kinds) > 0 {
		out2.ErrorKinds = kinds
	}
	if total := good + out2.Errors; total > 0 {
		out2.ErrorRate = float64(out2.Errors) / float64(total)
	}
	ms := func(us float64) float64 { return us / 1000 }
	pct := func(k string) float64 { return ms(res.Latency.Percentiles[k]) }
	out2.LatencyMS = latency.Latency{Mean: ms(res.Latency.Mean), P50: pct("50"), P75: pct("75"), P90: pct("90"), P95: pct("95"),
		P99: pct("99"), Max: ms(res.Latency.Max)}
	if len(res.Latency.Percentiles) == 0 && good+out2.Errors > 0 {
		return out2, fmt.Errorf("bombardier reported no latency percentiles (was -l passed?)")
	}
	return out2, nil
}

// errorKind is bombardier's description of a failed request without the
// prefix its HTTP library puts on its own errors (fasthttp v1.78 says
// "fasthttp: timeout" where earlier versions said "timeout"), so that a
// kind reads alike across library versions and as wrk and h2load name it.
func errorKind(description string) string {
	return strings.TrimPrefix(description, "fasthttp: ")
}
