// Package study reads a study.yaml (a published study's setup and every
// claim it makes, with the cells that would test each), computes every
// verdict from the study's committed runs, and renders the study's
// README.md. No verdict is written by hand: change a run or the rules and
// the README changes with them.
package study

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/internal/safefile"
)

// Study is a study folder read whole: study.yaml, its runs, and the
// verdicts computed from them.
type Study struct {
	Dir        string
	File       *File
	Runs       []*Run
	Judgements []Judgement
}

// Load reads dir/study.yaml and the runs it names, and judges every claim.
func Load(dir string) (*Study, error) {
	f, err := Open(filepath.Join(dir, "study.yaml"))
	if err != nil {
		return nil, err
	}
	runs, err := LoadRuns(dir, f)
	if err != nil {
		return nil, err
	}
	js := Judge(f, runs)
	// A claim whose hand-written note the runs contradict is an error of
	// the study file: the study is returned with it, so --check exits 2.
	return &Study{Dir: dir, File: f, Runs: runs, Judgements: js}, Errors(js)
}

// README is the study's rendered README.md.
func (s *Study) README() ([]byte, error) {
	// studies/<id>, however the folder was reached ("." from inside it
	// included): the README reads the same.
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = Render(&b, "studies/"+filepath.Base(abs), s.File, s.Runs, s.Judgements)
	return b.Bytes(), err
}

// MaxREADMESize bounds the README.md Stale reads: far above what a study
// renders (tens of kilobytes), so that only a file that is not a study's
// README is refused.
const MaxREADMESize = 16 << 20

// Stale says whether the README.md at path differs from the study's
// rendered one (md); a missing README is stale. What is not a regular
// file (a FIFO would hang the read, /dev/zero would fill the memory) or
// is larger than MaxREADMESize is an error naming path.
func Stale(path string, md []byte) (bool, error) {
	old, err := safefile.ReadIfPresent(path, MaxREADMESize)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(old, md), nil
}

// Print writes every claim's verdict and checklist as plain text.
func (s *Study) Print(w io.Writer) {
	for _, j := range s.Judgements {
		fmt.Fprintf(w, "%s: %s — %s\n", j.Claim.ID, j.Verdict, j.Why)
		for _, m := range j.Measures {
			fmt.Fprintf(w, "  %s in %s: ", m.label(), m.Run.Name)
			if e := j.Claim.Test.Expect; e == "fails" || e == "no_errors" {
				fmt.Fprintf(w, "%s\n", m.Failed)
			} else {
				fmt.Fprintf(w, "%s× (%s)%s\n", num(m.Ratio.Value), interval(m.Ratio), reading(j.Claim, m))
			}
			var items []string
			for _, it := range m.Checklist {
				mark := "✓"
				if !it.OK {
					mark = "✗"
				}
				items = append(items, mark+" "+it.Name)
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(items, "  "))
		}
		for _, m := range j.Missing {
			fmt.Fprintf(w, "  %s: not measured: %s\n", m.label(), m.Why)
		}
	}
}
