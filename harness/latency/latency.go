// Package latency is a run's latency figures, the one type that the load
// generators fill (loadgen) and that results.json records (results): the
// layering keeps loadgen from importing results, so the type both share
// lives below them. It imports nothing of the harness. Its json tags, and
// the type's name (the JSON Schema's definition of it), are part of
// results.json's schema: changing one changes the schema.
package latency

// Latency is percentiles, mean and maximum in milliseconds, over every
// request the load generator timed. A figure the generator does not report
// is 0 and absent from results.json: never interpolated.
type Latency struct {
	Mean  float64 `json:"mean,omitempty"`
	P50   float64 `json:"p50,omitempty"`
	P75   float64 `json:"p75,omitempty"`
	P90   float64 `json:"p90,omitempty"`
	P95   float64 `json:"p95,omitempty"`
	P99   float64 `json:"p99,omitempty"`
	P999  float64 `json:"p99_9,omitempty"`
	P9999 float64 `json:"p99_99,omitempty"`
	Max   float64 `json:"max"`
}
