package runner

import (
	"slices"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// What the command line set over the profile is recorded, and a run given
// other settings is not the same selection (a resume refuses it).
func TestSettingsRecordWhatFlagsSet(t *testing.T) {
	m, err := matrix.Open("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, err := m.WithSettings([]matrix.Setting{{Flag: "--trials 7", Key: "load.trials", Value: "7"}})
	if err != nil {
		t.Fatal(err)
	}
	s := SettingsOf(set, "")
	if !slices.Equal(s.Set, []string{"load.trials=7"}) || s.Load.Trials != 7 {
		t.Errorf("recorded set %q, trials %d; want [load.trials=7] and 7", s.Set, s.Load.Trials)
	}
	if len(SettingsOf(m, "").Set) != 0 || Selection(m, "", matrix.NetworkShared, nil) == Selection(set, "", matrix.NetworkShared, nil) {
		t.Errorf("the settings given are not told apart from none")
	}
}
