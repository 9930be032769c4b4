package analysis

import "github.com/webbench/webbench/harness/results"

// ModelSchema is the version of Model, which `report --format json`
// writes; docs/report.schema.json is its JSON Schema. Version 1 is the
// first: before it the command wrote bare rows with no version.
const ModelSchema = 1

// Model is what a report renders from one results.json: per scenario its
// rows, scaling table and fixed-rate curves, and the run's A/A noise
// floors. It is computed once here; renderers only format it.
type Model struct {
	Schema      int                 `json:"schema"`
	Environment results.Environment `json:"environment"`
	NoiseFloors []NoiseFloor        `json:"noise_floors,omitempty"`
	// FloorTooWide: the widest noise floor is MaxNoiseFloor or wider, so
	// it is not applied (see NoiseApplied).
	FloorTooWide   bool            `json:"floor_too_wide,omitempty"`
	BeatenCeilings []BeatenCeiling `json:"beaten_ceilings,omitempty"`
	Scenarios      []ScenarioModel `json:"scenarios"`
}

// ScenarioModel is one scenario of a Model.
type ScenarioModel struct {
	Name    string    `json:"name"`
	Rows    []*Row    `json:"rows"`
	Scaling []Scaling `json:"scaling,omitempty"`
	Curves  []*Curve  `json:"curves,omitempty"`
}

// Build computes the model of run. A scenario with neither an ok cell nor
// a curve is left out.
func Build(run *results.Run) *Model {
	m := &Model{Schema: ModelSchema, Environment: run.Environment, NoiseFloors: NoiseFloors(run), BeatenCeilings: BeatenCeilings(run)}
	m.FloorTooWide = Noise(run) >= MaxNoiseFloor
	for _, sc := range Scenarios(run) {
		rows, curves := Rows(run, sc), Curves(run, sc)
		if len(rows) > 0 || len(curves) > 0 {
			m.Scenarios = append(m.Scenarios, ScenarioModel{Name: sc, Rows: rows, Scaling: ScalingRows(rows), Curves: curves})
		}
	}
	return m
}

// Scenarios names run's scenarios: the matrix's in its order, then any a
// cell names that the matrix does not.
func Scenarios(run *results.Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range run.Matrix.Scenarios {
		seen[s.Name] = true
		out = append(out, s.Name)
	}
	for _, c := range run.Cells {
		if !seen[c.Scenario] {
			seen[c.Scenario] = true
			out = append(out, c.Scenario)
		}
	}
	return out
}
