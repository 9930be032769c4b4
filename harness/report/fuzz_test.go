package report

import (
	"bytes"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// report renders whatever results.Decode accepts, and never panics.
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
		markdown(&b, run, nil)
		CSV(&b, run)
		JSON(&b, run)
	})
}
