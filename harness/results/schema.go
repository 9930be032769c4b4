package results

import (
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/latency"
)

// The types below are results.json's own: the runner converts the
// matrix's and the load generator's values into them (runner.SettingsOf,
// runner's trial), so a change in matrix or loadgen cannot change the
// published schema unseen. Their json tags are the schema; Schema counts
// its versions. KV and Latency are the two it shares, from leaf packages
// (cellid, latency) that import nothing of the harness and say that their
// tags are the schema's.

// KV is one param value of a cell.
type KV = cellid.KV

// Network is how targets and the load generator were connected: bridge,
// shared, or host.
type Network string

// NetworkHost is the mode in which targets listened on the host's
// interfaces.
const NetworkHost Network = "host"

// Aggregate is how a cell's headline number comes from its trials.
type Aggregate string

// Aggregates.
const (
	AggregateMedian Aggregate = "median"
	AggregateBest   Aggregate = "best"
)

// Limits bound each container of a target.
type Limits struct {
	MemoryBytes int64 `json:"memory_bytes"`
	Pids        int64 `json:"pids"`
	NoFile      int64 `json:"nofile"`
}

// Target is a target as the run was given it (environment values stay
// out: they may be secrets; their keys are kept).
type Target struct {
	Name      string    `json:"name"`
	Services  []Service `json:"services"` // in start order
	Entry     string    `json:"entry"`
	Port      int       `json:"port"`
	EnvKeys   []string  `json:"env_keys,omitempty"`
	Variants  []Variant `json:"variants,omitempty"`
	Scenarios []string  `json:"scenarios,omitempty"`
	Limits    Limits    `json:"limits"`
}

// Service is one container image of a target.
type Service struct {
	Name     string   `json:"name"`
	Build    string   `json:"build"` // relative to the matrix file
	Replicas int      `json:"replicas"`
	EnvKeys  []string `json:"env_keys,omitempty"`
	Port     int      `json:"port,omitempty"`
	Images   []string `json:"images,omitempty"`
}

// Variant is a target run another way.
type Variant struct {
	Name    string   `json:"name"`
	EnvKeys []string `json:"env_keys,omitempty"`
}

// Scenario is a request shape and the answer it must get.
type Scenario struct {
	Name   string  `json:"name"`
	Path   string  `json:"path"`
	Params []Param `json:"params,omitempty"`
	Expect Expect  `json:"expect"`
	// Pipeline is the requests kept in flight on each connection (HTTP/1.1
	// pipelining, HTTP/2 streams); none: one, each answer awaited.
	Pipeline int `json:"pipeline,omitempty"`
}

// Param is one scenario axis.
type Param struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Expect is what a correct answer looked like.
type Expect struct {
	Status      int        `json:"status"`
	ContentType string     `json:"content_type,omitempty"`
	Body        *string    `json:"body,omitempty"`
	JSON        any        `json:"json,omitempty"`
	JSONArray   *JSONArray `json:"json_array,omitempty"`
}

// JSONArray is the expected shape of a JSON array answer.
type JSONArray struct {
	Length string   `json:"length"`
	Keys   []string `json:"keys,omitempty"`
}

// Result is what one run of the load generator measured. Only responses
// of the status class the scenario expects count as throughput; every
// other outcome is an error.
type Result struct {
	RPS         float64          `json:"rps"`      // good responses per second of time taken
	Requests    int64            `json:"requests"` // good responses: of the expected status class
	Errors      int64            `json:"errors"`   // every other request: another status class, unclassified, no response
	ErrorRate   float64          `json:"error_rate"`
	ErrorKinds  map[string]int64 `json:"error_kinds,omitempty"` // errors by kind
	StatusCodes map[string]int64 `json:"status_codes"`          // every response by class, good or not
	LatencyMS   Latency          `json:"latency_ms"`
	BytesRead   int64            `json:"bytes_read"`
	Seconds     float64          `json:"seconds"`
	OpenLoop    *Schedule        `json:"open_loop,omitempty"` // an open-loop generator's schedule
}

// Latency percentiles, mean and maximum in milliseconds. A figure the
// load generator does not report is absent (0): never interpolated. It is
// the load generator's own type, which package latency holds below both.
type Latency = latency.Latency

// Schedule is what an open-loop generator's schedule did in a trial: the
// sends it asked for, those made, those made more than 1 ms late (and by
// how much), and those never made.
type Schedule struct {
	Scheduled  int64   `json:"scheduled"`
	Sent       int64   `json:"sent"`
	Late       int64   `json:"late"`
	LateMeanMS float64 `json:"late_mean_ms,omitempty"`
	LateMaxMS  float64 `json:"late_max_ms,omitempty"`
	Unsent     int64   `json:"unsent"`
	// Histogram is every latency of the trial (µs, from intended send
	// times) in HdrHistogram's V2 compressed encoding, base64, which
	// HdrHistogram's own tools read: a cell's percentiles are those of its
	// trials' histograms merged.
	Histogram string `json:"hdr_histogram,omitempty"`
}
