package verify

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/matrix"
)

// DateGap is how long after a database test's first answer FollowUp asks
// for it again, to see its Date change: a server must not send a Date it
// cached once. TFB waits 3 s. A Date counts whole seconds, so any gap over
// one second shows a fresh Date changed; half a second more leaves a
// server that refreshes its Date on a one-second timer room for the
// timer's lag.
const DateGap = 1500 * time.Millisecond

// Getter asks for url once and returns the answer, as the first answer
// was asked for. Its error is a failure of the harness to ask, not of the
// server to answer (that is Response.Error).
type Getter func(ctx context.Context, url string) (Response, error)

// FollowUp makes the requests TFB's verification makes of a database test
// beyond its first answer, and checks their answers.
type FollowUp struct {
	// Get asks for one answer.
	Get Getter
	// Wait waits d or until ctx is done, saying why it stopped early;
	// nil waits on a timer.
	Wait func(ctx context.Context, d time.Duration) error
}

// Check asks what TFB asks of sc's test beyond first, the answer to url
// (the cell's URL: sc.Path as c substitutes it, after the target's base),
// and returns the rules the answers broke. Call it as soon as first is
// answered, and only when first broke none: the queries and updates tests
// are asked at each of QueryCases, each answer held to every rule at that
// value; then, DateGap after the call, url is asked again and its Date
// must differ from first's. The error is Get's or Wait's: nothing was
// judged.
func (f FollowUp) Check(ctx context.Context, sc matrix.Scenario, c matrix.Cell, url string, first Response) ([]Problem, error) {
	t := sc.Expect.TFB
	if t == nil {
		return nil, nil
	}
	start := time.Now()
	var problems []Problem
	if t.Test == matrix.TFBQueries || t.Test == matrix.TFBUpdates {
		base := strings.TrimSuffix(url, c.Subst(sc.Path))
		for _, q := range QueryCases {
			u := caseURL(sc, c, base, q)
			r, err := f.Get(ctx, u)
			if err != nil {
				return nil, err
			}
			problems = append(problems, caseProblems(*t, q, r)...)
		}
	}
	if err := f.wait(ctx, DateGap-time.Since(start)); err != nil {
		return nil, err
	}
	second, err := f.Get(ctx, url)
	if err != nil {
		return nil, err
	}
	return append(problems, dateChanged(t.Test, first, second)...), nil
}

func (f FollowUp) wait(ctx context.Context, d time.Duration) error {
	if f.Wait != nil {
		return f.Wait(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// caseURL is sc's URL with its queries parameter q: the param that
// sc's TFB.Queries names ("{queries}") set to q where sc.Path holds it, or
// else the URL's query parameter queries set to q.
func caseURL(sc matrix.Scenario, c matrix.Cell, base, q string) string {
	ref := sc.Expect.TFB.Queries
	if name, ok := strings.CutPrefix(ref, "{"); ok && strings.HasSuffix(name, "}") && strings.Contains(sc.Path, ref) {
		name = strings.TrimSuffix(name, "}")
		cc := c
		cc.Params = slices.Clone(c.Params)
		for i := range cc.Params {
			if cc.Params[i].Name == name {
				cc.Params[i].Value = url.QueryEscape(q)
			}
		}
		return base + cc.Subst(sc.Path)
	}
	u, err := url.Parse(base + c.Subst(sc.Path))
	if err != nil {
		return base + c.Subst(sc.Path)
	}
	v := u.Query()
	v.Set("queries", q)
	u.RawQuery = v.Encode()
	return u.String()
}

// caseProblems checks the answer r to test t asked with queries=q.
func caseProblems(t matrix.TFB, q string, r Response) []Problem {
	where := fmt.Sprintf("%s?queries=%s", t.Test, q)
	switch {
	case r.Error != "":
		return []Problem{problem(RuleStatus, "%s: no answer: %s", where, r.Error)}
	case r.Status != 200:
		return []Problem{problem(RuleStatus, "%s: status %d, want 200 (TFB answers %d rows): %q", where, r.Status, Clamp(q), clip(r.Body))}
	}
	t.Queries = q
	var out []Problem
	for _, p := range CheckTFB(t, r, func(s string) string { return s }) {
		p.Detail = where + ": " + strings.TrimPrefix(p.Detail, t.Test+": ")
		out = append(out, p)
	}
	return out
}

// dateChanged checks that second, asked DateGap after first, carries
// another Date. A first answer without one broke the date rule already.
func dateChanged(test string, first, second Response) []Problem {
	switch d := first.Header.Get("Date"); {
	case d == "":
		return nil
	case second.Error != "":
		return []Problem{problem(RuleStatus, "%s: the second answer, for its Date: no answer: %s", test, second.Error)}
	case second.Header.Get("Date") == d:
		return []Problem{problem(RuleDateCached, "%s: the same Date %q on two answers %s apart: TFB requires the Date of each answer, not one cached", test, d, DateGap)}
	}
	return nil
}
