package results

// DBCounts is what the database of a cell of a TechEmpower database test
// served, counted by the database itself (PostgreSQL's
// pg_stat_statements), as TFB's verifier counts it: the selects and rows
// of the statements that name the test's table, per answered request. An
// answer cannot show how it was made; these counts show a server that
// answers from memory (no selects) or fetches many rows in one statement
// (one select where the test asks for one a row).
type DBCounts struct {
	Method string `json:"method"` // how they were counted: DBCountsStatStatements
	Table  string `json:"table"`  // the test's table: World, or Fortune for fortunes
	// PerRequest is the selects one request of the cell must make: its
	// queries parameter clamped to 1..500 for queries and updates, 1 for
	// db and fortunes.
	PerRequest int `json:"per_request"`
	// Verify is, per visit, what the requests of the cell's verification
	// cost (the handful of probes TFB's rules send), held to the rules
	// exactly.
	Verify []DBCount `json:"verify,omitempty"`
	// Trials is what each measured trial's answered requests cost, held to
	// the rules within a tolerance (a shortfall is a warning of the cell).
	Trials []DBTrialCount `json:"trials,omitempty"`
}

// DBCountsStatStatements is DBCounts.Method when pg_stat_statements was
// read before and after what it counted, and the two subtracted.
const DBCountsStatStatements = "pg_stat_statements"

// DBCount is what the database served some answered requests: the
// statements naming the test's table, those with the word UPDATE as
// updates (their rows are rows written), the others with SELECT as
// selects (their rows are rows read).
type DBCount struct {
	Requests    int64 `json:"requests"`               // answered requests: the probes, or a trial's good responses
	Asked       int64 `json:"asked"`                  // the selects they asked for: PerRequest each, or each probe's own
	Selects     int64 `json:"selects"`                // calls of select statements
	RowsRead    int64 `json:"rows_read"`              // rows those returned
	Updates     int64 `json:"updates,omitempty"`      // calls of update statements
	RowsWritten int64 `json:"rows_written,omitempty"` // rows those wrote
	// The same per answered request.
	SelectsPerRequest     float64 `json:"selects_per_request"`
	RowsReadPerRequest    float64 `json:"rows_read_per_request"`
	RowsWrittenPerRequest float64 `json:"rows_written_per_request,omitempty"`
}

// DBTrialCount is a DBCount of one measured trial, Trial its index in the
// cell's trials.
type DBTrialCount struct {
	Trial int `json:"trial"`
	DBCount
}
