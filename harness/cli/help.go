package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
)

// command is one subcommand: its help is generated from the flags its
// register function declares, the same function the command parses with,
// so the help cannot leave a flag out.
type command struct {
	name    string
	args    string // positional arguments, as the synopsis spells them
	summary string
	// register declares the command's flags on fs, bound to fresh
	// variables: the help calls it on a throwaway set.
	register func(fs *flag.FlagSet)
	run      func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order the help shows them. It is
// set in init: the commands' parsing looks their help up here.
var commands []command

func init() {
	commands = []command{
		{"plan", "", "validate and expand the matrix, list the cells and an estimate; no Docker",
			func(fs *flag.FlagSet) { new(planOpts).register(fs) }, planCmd},
		{"run", "", "build, verify and measure the cells → DIR/results.json, README.md, charts",
			func(fs *flag.FlagSet) { new(runOpts).register(fs) }, run},
		{"report", "DIR", "re-render DIR/README.md (or results.csv, report.json) from DIR/results.json; no Docker",
			func(fs *flag.FlagSet) { new(reportOpts).register(fs) }, reportCmd},
		{"compare", "A B [C…]", "compare result folders cell by cell",
			func(fs *flag.FlagSet) { new(compareOpts).register(fs) }, func(_ context.Context, a []string, o, e io.Writer) error { return compareCmd(a, o, e) }},
		{"index", "[DIR]", "rewrite the table of result sets in DIR/README.md (default results)",
			func(*flag.FlagSet) {}, func(_ context.Context, a []string, o, e io.Writer) error { return index(a, o, e) }},
		{"study", "DIR", "compute every claim's verdict of the study in DIR from its committed runs → DIR/README.md; no Docker",
			func(fs *flag.FlagSet) { new(studyOpts).register(fs) }, func(_ context.Context, a []string, o, e io.Writer) error { return studyCmd(a, o, e) }},
		{"new", "NAME", "write a minimal target folder targets/NAME and print its matrix entry",
			func(fs *flag.FlagSet) { new(newOpts).register(fs) }, func(_ context.Context, a []string, o, e io.Writer) error { return newCmd(a, o, e) }},
		{"check", "DIR", "build the target in DIR, start it and check it against the target contract, without load",
			func(fs *flag.FlagSet) { new(checkOpts).register(fs) }, checkCmd},
		{"clean", "", "remove what killed runs left (--all: also live runs', after asking)",
			func(fs *flag.FlagSet) { new(cleanOpts).register(fs) }, clean},
		{"version", "", "print the harness version (also --version)", func(*flag.FlagSet) {}, nil},
	}
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// newFlagSet is the flag set of a command, with its flags declared.
func (c *command) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.register(fs)
	return fs
}

// dash spells a flag as the README does: -f, --profile.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// synopsis is "run [-f FILE] [--force] …", from the flag set itself: a
// flag's argument is the backquoted word of its usage (flag.UnquoteUsage),
// booleans take none.
func synopsis(c *command, fs *flag.FlagSet) string {
	parts := []string{c.name}
	if c.args != "" {
		parts = append(parts, c.args)
	}
	fs.VisitAll(func(f *flag.Flag) {
		arg, _ := flag.UnquoteUsage(f)
		if arg == "" {
			parts = append(parts, "["+dash(f.Name)+"]")
			return
		}
		parts = append(parts, "["+dash(f.Name)+" "+arg+"]")
	})
	return strings.Join(parts, " ")
}

// wrap breaks words into lines of at most width columns, each after the
// first indented by indent.
func wrap(words []string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 && line+1+len(w) > width {
			b.WriteString("\n" + indent)
			line = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// synopsisWords splits a synopsis into its bracketed groups, so a line
// never breaks inside one.
func synopsisWords(s string) []string {
	var words []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ' ':
			if depth == 0 {
				words = append(words, s[start:i])
				start = i + 1
			}
		}
	}
	return append(words, s[start:])
}

// Synopses are the commands' one-line usages, as the README's "Commands"
// block shows them (a test holds the README to this).
func Synopses() string {
	var b strings.Builder
	for i := range commands {
		c := &commands[i]
		if c.run == nil {
			continue
		}
		s := synopsis(c, c.flagSet())
		words := synopsisWords(s)
		words[0] = fmt.Sprintf("bin/harness %-7s", words[0])
		b.WriteString(wrap(words, 104, strings.Repeat(" ", len("bin/harness ")+8)) + "\n")
	}
	return b.String()
}

// writeTopUsage is the help of `harness -h`: every command with its
// synopsis, generated from its flags.
func writeTopUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: harness <command> [flags]   (harness <command> -h for its flags)\n       harness --version\n\ncommands:\n")
	for i := range commands {
		c := &commands[i]
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
		if c.run == nil {
			continue
		}
		words := synopsisWords(synopsis(c, c.flagSet()))
		fmt.Fprintf(w, "           %s\n", wrap(words, 100, "             "))
	}
}

// printUsage writes a command's usage and its flags.
func printUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: harness %s\n%s\n\nflags:\n", synopsis(c, fs), c.summary)
	fs.VisitAll(func(f *flag.Flag) {
		arg, help := flag.UnquoteUsage(f)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			help += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s\n    \t%s\n", strings.TrimSpace(dash(f.Name)+" "+arg), help)
	})
}

// parseFlags parses args with the command's flags, accepting flags before
// and after positional arguments, and checks the number of positional
// ones (maxPos -1: any). -h prints the usage on stdout and ends the
// command with exit 0; an unknown flag is named with the nearest known
// one, exit 2.
func parseFlags(fs *flag.FlagSet, args []string, minPos, maxPos int, stdout, stderr io.Writer) ([]string, error) {
	c := lookup(fs.Name())
	fs.SetOutput(io.Discard) // the errors are said here, once
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stdout, c, fs)
				return nil, &ExitError{Code: ExitOK}
			}
			// Said here as "harness run: …", the way the flag's
			// command is named in its usage.
			fmt.Fprintf(stderr, "harness %s: %s\n(harness %s -h lists its flags)\n", fs.Name(), flagError(fs, err), fs.Name())
			return nil, &ExitError{Code: ExitUsage}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(pos) < minPos:
		return nil, usageErr("%s: missing argument: usage: harness %s", fs.Name(), synopsis(c, fs))
	case maxPos >= 0 && len(pos) > maxPos:
		return nil, usageErr("%s: unexpected argument %q: usage: harness %s", fs.Name(), pos[maxPos], synopsis(c, fs))
	}
	return pos, nil
}

// flagError rewords the flag package's errors: "unknown flag --onyl (did
// you mean --only?)", "flag --seed: invalid value …".
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		s := "unknown flag " + dash(name)
		if near := nearest(fs, name); near != "" {
			s += " (did you mean " + dash(near) + "?)"
		}
		return s
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag " + dash(name) + " needs an argument"
	}
	// "invalid value "x" for flag -seed: parse error"
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		rest := msg[i+len(" for flag -"):]
		name, why, _ := strings.Cut(rest, ": ")
		return fmt.Sprintf("flag %s: %s: %s", dash(name), msg[:i], why)
	}
	return msg
}

// nearest is the flag whose name is closest to name (edit distance at most
// a third of its length, at least 2), or "".
func nearest(fs *flag.FlagSet, name string) string {
	best, bestD := "", max(2, len(name)/3)+1
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b. Written here, as
// cobra writes its own for the same "did you mean" message: a dozen lines
// are not worth a dependency.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// version is the build's version: the Makefile's git describe, else the
// VCS revision Go stamped into the binary, else "dev".
func version() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 7 {
			rev = rev[:7]
		}
		if rev != "" && dirty {
			return rev + "-dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return Version
}
