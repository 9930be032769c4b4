package compare

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/webbench/webbench/harness/results"
)

// Read reads the results.json of a run folder for a comparison. A cell
// whose figures contradict each other (an rps that is not its requests
// over its seconds, a p99 below its p50, a summary its trials do not
// give: see results.Cell.Check) is refused, every such cell named: a file
// edited by hand, or damaged, would otherwise move a ratio and pass a gate.
func Read(dir string) (*results.Run, error) {
	run, err := results.Read(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "results.json")
	var errs []error
	for i, c := range run.Cells {
		if err := c.Check(); err != nil {
			errs = append(errs, fmt.Errorf("%s: cell %d (%s): %w", path, i+1, c.ID(), err))
		}
	}
	if len(errs) > 0 {
		errs = append(errs, fmt.Errorf("%s: compare judges no run whose figures contradict each other; measure the cells again, or restore the file", path))
		return nil, errors.Join(errs...)
	}
	return run, nil
}
