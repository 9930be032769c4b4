package results

import (
	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merged is the latency of every request of the trials together: their
// HDR histograms (an open-loop generator's, see Schedule.Histogram)
// merged, then read at each percentile. A cell's p99 is then the p99 of
// its requests, not a median of its trials' p99s, which hides a trial
// whose tail was long. It is nil unless every trial carries a histogram
// that decodes: a merge of some trials would describe other requests than
// the cell's.
func Merged(trials []Trial) *Latency {
	var all *hdrhistogram.Histogram
	for _, t := range trials {
		h := decodeHistogram(t)
		if h == nil {
			return nil
		}
		if all == nil {
			all = h
			continue
		}
		if dropped := all.Merge(h); dropped > 0 {
			return nil
		}
	}
	if all == nil || all.TotalCount() == 0 {
		return nil
	}
	ms := func(q float64) float64 { return float64(all.ValueAtQuantile(q)) / 1000 }
	return &Latency{Mean: all.Mean() / 1000, P50: ms(50), P75: ms(75), P90: ms(90), P95: ms(95), P99: ms(99), P999: ms(99.9),
		P9999: ms(99.99), Max: float64(all.Max()) / 1000}
}

// decodeHistogram is t's histogram, nil when it has none or it does not
// decode.
func decodeHistogram(t Trial) *hdrhistogram.Histogram {
	if t.OpenLoop == nil || t.OpenLoop.Histogram == "" {
		return nil
	}
	h, err := hdrhistogram.Decode([]byte(t.OpenLoop.Histogram))
	if err != nil {
		return nil
	}
	return h
}
