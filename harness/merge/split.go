package merge

import (
	"errors"
	"fmt"
)

// ErrShareless is returned when a load cannot give every generator a
// share: fewer connections (or requests per second) than generators.
var ErrShareless = errors.New("a generator would get no share")

// Split divides a cell's load (its connections, or its rate) among n
// generators, in the order they are given: each gets total/n and the
// first also the remainder, so the shares sum to total and the split can
// be recorded as it was.
func Split(total, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("split %d among %d generators: %w", total, n, ErrNoParts)
	}
	if total < n {
		return nil, fmt.Errorf("split %d among %d generators: %w", total, n, ErrShareless)
	}
	shares := make([]int, n)
	for i := range shares {
		shares[i] = total / n
	}
	shares[0] += total % n
	return shares, nil
}
