package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/study"
)

type studyOpts struct{ check bool }

func (o *studyOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.check, "check", false, "write nothing; exit 1 when DIR/README.md is not what the runs render")
}

// studyCmd prints every claim of the study in DIR with its verdict and
// checklist, and renders DIR/README.md.
func studyCmd(args []string, stdout, stderr io.Writer) error {
	var o studyOpts
	fs := flag.NewFlagSet("study", flag.ContinueOnError)
	o.register(fs)
	pos, err := parseFlags(fs, args, 1, 1, stdout, stderr)
	if err != nil {
		return err
	}
	s, err := study.Load(pos[0])
	if s == nil { // a study.yaml that does not validate, or a run it names that cannot be read
		return withCode(ExitUsage, err)
	}
	s.Print(stdout)
	if err != nil { // a claim's note the runs contradict: shown above, fixed in study.yaml
		return withCode(ExitUsage, err)
	}
	md, err := s.README()
	if err != nil {
		return err
	}
	path := filepath.Join(pos[0], "README.md")
	if o.check {
		stale, err := study.Stale(path, md)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		if stale {
			return withCode(ExitFailed, fmt.Errorf("%s is stale: run harness study %s", path, pos[0]))
		}
		return nil
	}
	if err := results.WriteFileAtomic(path, md); err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}
