package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/results"
)

// Whatever results.Decode accepts renders, as Markdown, CSV, JSON and
// charts, without an error and without a panic; the Markdown names every
// cell's scenario.
func FuzzRender(f *testing.F) {
	f.Add([]byte(`{"schema":1,"cells":[null,{"target":"a","scenario":"s","status":"ok","trials":[{"rps":10},{"rps":12}]}]}`))
	f.Add([]byte(`{"schema":1,"cells":[{"target":"a","scenario":"s","status":"failed","reason":"x|<y>"},{"target":"a","scenario":"s","control":true,"status":"ok","trials":[{"rps":1}]}]}`))
	f.Add([]byte(`{"schema":1,"ceilings":[{"cpus":1,"ceiling_rps":0}],"cells":[{"target":"a","scenario":"s","params":[{"name":"n","value":"x"}],"status":"ok","summary":{"aggregate":"best"},"trials":[{"rps":1e300}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := results.Decode(data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		charts, err := Charts(run)
		if err != nil {
			t.Fatalf("charts: %v", err)
		}
		if err := markdown(&b, run, charts); err != nil {
			t.Fatalf("markdown: %v", err)
		}
		for _, c := range run.Cells {
			if !strings.Contains(b.String(), mdtext.Text(c.Scenario)) {
				t.Fatalf("the README does not name scenario %q", c.Scenario)
			}
		}
		if err := CSV(context.Background(), &b, run); err != nil {
			t.Fatalf("csv: %v", err)
		}
		if err := JSON(&b, run); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}
