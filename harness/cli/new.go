package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/scaffold"
)

type newOpts struct{ lang, dir, file string }

func (o *newOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.lang, "lang", "go", "language of the template: `"+strings.Join(scaffold.LangNames(), "|")+"`")
	fs.StringVar(&o.dir, "dir", "targets", "folder `DIR` the target's folder is written in")
	fs.StringVar(&o.file, "f", "matrix.yaml", "matrix `FILE` the entry is for (its images: are checked)")
}

// newCmd writes a minimal target and prints the matrix entry that adds it.
func newCmd(args []string, stdout, stderr io.Writer) error {
	var o newOpts
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	o.register(fs)
	pos, err := parseFlags(fs, args, 1, 1, stdout, stderr)
	if err != nil {
		return err
	}
	name := pos[0]
	// Before writing anything: the entry printed is for this file, and its
	// images: say which base images to add.
	declared := map[string]string{}
	switch m, err := matrix.Open(o.file); {
	case err == nil:
		declared = m.Images
	case errors.Is(err, os.ErrNotExist):
		// A matrix yet to be written: it declares no image.
	default:
		return usageErr("new: -f %s is not a matrix file new can add to (%v); name one with -f", o.file, err)
	}
	dir, err := scaffold.Write(o.dir, name, o.lang)
	if err != nil {
		return usageErr("new: %v", err)
	}
	build, err := filepath.Rel(filepath.Dir(o.file), dir)
	if err != nil {
		build = dir
	}
	entry, missing := scaffold.Entry(name, o.lang, build, declared)
	fmt.Fprintf(stdout, "wrote %s/\n\nAdd it under targets: in %s:\n\n%s\n", dir, o.file, entry)
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "and under images: (its base images; without a registry the harness builds a stand-in):\n\n%s\n\n", strings.Join(missing, "\n"))
	}
	fmt.Fprintf(stdout, "Then: bin/harness check %s (the contract, without load), and measure it beside go-nethttp:\n"+
		"  make matrix PROFILE=trials6 ARGS='--only %s,go-nethttp --out results/%s --label %s'\n", dir, name, name, name)
	return nil
}
